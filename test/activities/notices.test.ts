/**
 * The notices' facts and ledger on a real warehouse (activities/notices.ts), without Temporal: a
 * source failing for a day (the `sources` table) opens one source_failing incident, planned as one
 * pending row per channel and target; a second call plans nothing more; the source recovering
 * resolves it; pendingNotices lists an incident's opened row before its resolved one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../warehouse/warehouse.js';
import { createNoticesActivities, noticeBody, type NoticesRoundInput } from '../../activities/notices.js';
import { tempDir } from '../helpers/service.js';

const H = 3_600_000;
let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await Warehouse.open(tempDir('newsflow-wh-'));
}, 120_000);
afterAll(() => warehouse?.close());

describe('notices on a warehouse', () => {
  it('a source failing for 25 hours: one incident, a row per channel and target; recovered: resolved', async () => {
    const now = Date.parse('2026-12-02T05:00:00.000Z');
    await warehouse.exec(
      `INSERT INTO sources (source, url, origin, status, failing_since, failures_in_row, last_error)
       VALUES ('example-com', 'https://example.com/feed.xml', 'file', 'failing', make_timestamp($1::BIGINT), 40, 'HTTP 503')`,
      [(now - 25 * H) * 1000],
    );
    const a = createNoticesActivities({ warehouse, smtpUrl: null });
    const input: NoticesRoundInput = {
      now,
      pipelines: [{ name: 'never-landed', errorAfterMs: H }],
      notify: { webhook: { url: 'https://hooks.example.com/n' }, email: { to: ['a@example.com', 'b@example.com'] } },
    };
    const id = 'source_failing/example-com/2026-12-02T05:00:00.000Z';
    expect(await a.openAndResolveIncidents(input)).toEqual({ opened: [id], resolved: [] });
    expect(await a.openAndResolveIncidents({ ...input, now: now + 60_000 })).toEqual({ opened: [], resolved: [] });
    const rows = await warehouse.query<{ channel: string; target: string; idempotency_key: string; status: string; detail: string }>(
      'SELECT channel, target, idempotency_key, status, detail FROM notices ORDER BY channel, target',
    );
    expect(rows).toEqual([
      ...['a@example.com', 'b@example.com'].map((t) => ({
        channel: 'email',
        target: t,
        idempotency_key: `${id}.opened`,
        status: 'pending',
        detail: 'source example-com: failing for 1d 1h (since 2026-12-01T04:00:00.000Z): HTTP 503',
      })),
      { channel: 'webhook', target: 'https://hooks.example.com/n', idempotency_key: `${id}.opened`, status: 'pending', detail: expect.any(String) },
    ]);
    await warehouse.exec("UPDATE sources SET status = 'ok', failing_since = NULL WHERE source = 'example-com'");
    expect(await a.openAndResolveIncidents({ ...input, now: now + 2 * 60_000 })).toEqual({ opened: [], resolved: [id] });
    const pending = await a.pendingNotices();
    expect(pending.map((p) => `${p.event} ${p.channel} ${p.target}`)).toEqual([
      'opened email a@example.com',
      'opened email b@example.com',
      'opened webhook https://hooks.example.com/n',
      'resolved email a@example.com',
      'resolved email b@example.com',
      'resolved webhook https://hooks.example.com/n',
    ]);
  });

  it("the bodies: json's fields, slack's {text}", () => {
    const e = { id: 'stale/ukraine/x', incident: 'stale' as const, subject: 'ukraine', event: 'opened' as const, at: 0, detail: 'pipeline ukraine: late' };
    expect(JSON.parse(noticeBody(e))).toEqual({
      idempotency_key: 'stale/ukraine/x.opened',
      incident_id: 'stale/ukraine/x',
      incident: 'stale',
      subject: 'ukraine',
      event: 'opened',
      at: '1970-01-01T00:00:00.000Z',
      detail: 'pipeline ukraine: late',
      text: '[newsflow] OPENED stale: pipeline ukraine: late',
    });
    expect(JSON.parse(noticeBody(e, 'slack'))).toEqual({ text: '[newsflow] OPENED stale: pipeline ukraine: late' });
  });
});
