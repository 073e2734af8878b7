/** The notices' incidents, their pure part (activities/incidents.ts): facts and open incidents in, events out. */
import { describe, expect, it } from 'vitest';
import { humanMs, incidentEvents, noticeText, type Facts, type OpenIncident } from '../../activities/incidents.js';

const H = 3_600_000;
const T0 = Date.parse('2026-12-02T05:00:00.000Z');
const pipeline = (over: Partial<Facts['pipelines'][number]> = {}): Facts['pipelines'][number] => ({
  pipeline: 'ukraine',
  errorAfterMs: H,
  lastSuccessAt: T0,
  newest: { at: T0, failed: null },
  ...over,
});
const facts = (p: Facts['pipelines'], s: Facts['failingSources'] = []): Facts => ({ pipelines: p, failingSources: s });

describe('incidentEvents', () => {
  it('a pipeline within error_after opens nothing; past it, one stale incident opens, named by the round', () => {
    expect(incidentEvents(facts([pipeline()]), [], T0 + H)).toEqual([]);
    const ev = incidentEvents(facts([pipeline()]), [], T0 + H + 60_000);
    expect(ev).toEqual([
      {
        id: 'stale/ukraine/2026-12-02T06:01:00.000Z',
        incident: 'stale',
        subject: 'ukraine',
        event: 'opened',
        at: T0 + H + 60_000,
        detail: 'pipeline ukraine: no successful load for 1h 1m (error_after 1h; last at 2026-12-02T05:00:00.000Z)',
      },
    ]);
    expect(noticeText(ev[0]!)).toBe(
      '[newsflow] OPENED stale: pipeline ukraine: no successful load for 1h 1m (error_after 1h; last at 2026-12-02T05:00:00.000Z)',
    );
  });

  it('an open incident that still holds opens nothing again; it resolves when a load lands, with its own id', () => {
    const open: OpenIncident[] = [{ id: 'stale/ukraine/x', incident: 'stale', subject: 'ukraine' }];
    expect(incidentEvents(facts([pipeline()]), open, T0 + 5 * H)).toEqual([]);
    const landed = pipeline({ lastSuccessAt: T0 + 5 * H, newest: { at: T0 + 5 * H, failed: null } });
    expect(incidentEvents(facts([landed]), open, T0 + 5 * H + 1000)).toEqual([
      {
        id: 'stale/ukraine/x',
        incident: 'stale',
        subject: 'ukraine',
        event: 'resolved',
        at: T0 + 5 * H + 1000,
        detail: 'pipeline ukraine: a load landed at 2026-12-02T10:00:00.000Z',
      },
    ]);
  });

  it('a pipeline with no successful load, or no error_after, is never stale', () => {
    expect(incidentEvents(facts([pipeline({ lastSuccessAt: null, newest: null })]), [], T0 + 100 * H)).toEqual([]);
    expect(incidentEvents(facts([pipeline({ errorAfterMs: null })]), [], T0 + 100 * H)).toEqual([]);
  });

  it('a failed newest load opens failed_run with its check; a newer passing load resolves it', () => {
    const failed = pipeline({ newest: { at: T0 + 1000, failed: 'check min_rows failed for pipeline ukraine: 0 rows < 1' } });
    const ev = incidentEvents(facts([failed]), [], T0 + 2000);
    expect(ev.map((e) => [e.id, e.event, e.detail])).toEqual([
      ['failed_run/ukraine/2026-12-02T05:00:02.000Z', 'opened', 'pipeline ukraine: run failed: check min_rows failed for pipeline ukraine: 0 rows < 1'],
    ]);
    const open = ev.map(({ id, incident, subject }) => ({ id, incident, subject }));
    expect(incidentEvents(facts([failed]), open, T0 + 3000)).toEqual([]);
    const passed = pipeline({ lastSuccessAt: T0 + 4000, newest: { at: T0 + 4000, failed: null } });
    expect(incidentEvents(facts([passed]), open, T0 + 5000).map((e) => [e.id, e.event])).toEqual([['failed_run/ukraine/2026-12-02T05:00:02.000Z', 'resolved']]);
  });

  it('a failed run and staleness are two incidents of one pipeline, opened and resolved apart', () => {
    const both = pipeline({ newest: { at: T0 + 2 * H, failed: 'check invariants failed' } });
    const ev = incidentEvents(facts([both]), [], T0 + 2 * H);
    expect(ev.map((e) => `${e.incident} ${e.event}`)).toEqual(['failed_run opened', 'stale opened']);
  });

  it('a source failing for a day opens source_failing (not before); it resolves when no longer failing', () => {
    const src = { source: 'example-com', failingSince: T0, lastError: 'HTTP 503' };
    expect(incidentEvents(facts([], [src]), [], T0 + 23 * H)).toEqual([]);
    const ev = incidentEvents(facts([], [src]), [], T0 + 24 * H);
    expect(ev.map((e) => [e.id, e.detail])).toEqual([
      ['source_failing/example-com/2026-12-03T05:00:00.000Z', 'source example-com: failing for 1d (since 2026-12-02T05:00:00.000Z): HTTP 503'],
    ]);
    const open = ev.map(({ id, incident, subject }) => ({ id, incident, subject }));
    expect(incidentEvents(facts([], [src]), open, T0 + 30 * H)).toEqual([]);
    expect(incidentEvents(facts([], []), open, T0 + 31 * H).map((e) => [e.event, e.detail])).toEqual([['resolved', 'source example-com: no longer failing']]);
  });

  it('an open incident of a pipeline no longer watched resolves, saying so', () => {
    const open: OpenIncident[] = [{ id: 'stale/gone/x', incident: 'stale', subject: 'gone' }];
    expect(incidentEvents(facts([pipeline()]), open, T0 + 1000).map((e) => [e.id, e.event, e.detail])).toEqual([
      ['stale/gone/x', 'resolved', "pipeline gone: no longer watched (not in the project file's pipelines)"],
    ]);
  });

  it('humanMs', () => {
    expect([humanMs(30_000), humanMs(61 * 60_000), humanMs(2 * H), humanMs(27 * H), humanMs(48 * H)]).toEqual(['30s', '1h 1m', '2h', '1d 3h', '2d']);
  });
});
