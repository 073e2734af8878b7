/**
 * Incidents of the notices (the project file's `notify:`, workflows/notices.ts), their pure part:
 * given what the warehouse says of each watched pipeline and of the failing sources, the incidents
 * still open (the ledger's), and the round's time, which incidents open and which resolve. No
 * Temporal schedule is read: a pipeline is judged by its `_loads` rows alone, so the rule is the
 * same on any server (the time-skipping test server has no schedules).
 *
 * - `failed_run`: the pipeline's newest run failed: its newest load failed its checks
 *   (`_loads.check_failed`, written by the run before it failed), or its newest finished run (Temporal's
 *   visibility, activities/notices.ts) failed before it recorded a load; resolved by a newer one that passed.
 * - `stale`: the last successful load is older than the pipeline's error_after; resolved when a
 *   load lands again. A pipeline with no successful load yet is not judged (no load to be late
 *   from: `newsflow status` says so).
 * - `source_failing`: a source whose status has been `failing` for a day (its failing_since);
 *   resolved when it is no longer failing.
 * - An open incident whose pipeline is no longer watched (removed from the file) is resolved.
 *
 * An incident's id is `<incident>/<subject>/<the round's time, ISO>`: one per incident, so a
 * pipeline stale twice makes two incidents with two ids; a notice's idempotency key is `<id>.<event>`.
 */

export type IncidentKind = 'failed_run' | 'stale' | 'source_failing';
export type IncidentEventType = 'opened' | 'resolved';

export const SOURCE_FAILING_MS = 86_400_000;

export interface PipelineFacts {
  pipeline: string;
  /** past this long without a successful load the pipeline is stale (null: no bound, never stale) */
  errorAfterMs: number | null;
  /** when its last successful load landed (ms), null: none */
  lastSuccessAt: number | null;
  /** its newest load, successful or not: when, and its failed check's message (null: it passed) */
  newest: { at: number; failed: string | null } | null;
}

export interface SourceFacts {
  source: string;
  /** ms since the source has been failing (the `sources` table's failing_since) */
  failingSince: number;
  lastError: string | null;
}

export interface Facts {
  pipelines: PipelineFacts[];
  /** the sources whose status is failing (the others are not) */
  failingSources: SourceFacts[];
}

export interface OpenIncident {
  id: string;
  incident: IncidentKind;
  subject: string;
}

export interface IncidentEvent extends OpenIncident {
  event: IncidentEventType;
  /** the round's time (ms) */
  at: number;
  /** one line: what happened */
  detail: string;
}

/** A duration as people read it: 61m, 2h 5m, 1d 3h. */
export function humanMs(ms: number): string {
  const m = Math.floor(ms / 60_000);
  if (m < 60) return m < 1 ? `${Math.max(0, Math.round(ms / 1000))}s` : `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
  return h % 24 ? `${Math.floor(h / 24)}d ${h % 24}h` : `${Math.floor(h / 24)}d`;
}

const iso = (ms: number) => new Date(ms).toISOString();
export const incidentId = (incident: IncidentKind, subject: string, at: number): string => `${incident}/${subject}/${iso(at)}`;

/** The incidents to open and to resolve this round (opened ones first, in the facts' order). */
export function incidentEvents(facts: Facts, open: readonly OpenIncident[], now: number, sourceFailingMs = SOURCE_FAILING_MS): IncidentEvent[] {
  /** what holds now, per (incident, subject): the detail of an incident that should be open */
  const active = new Map<string, { incident: IncidentKind; subject: string; detail: string }>();
  const key = (incident: IncidentKind, subject: string) => `${incident}\u0000${subject}`;
  /** why an incident that held no longer does, per (incident, subject) of a watched subject */
  const cleared = new Map<string, string>();
  for (const p of facts.pipelines) {
    const n = p.newest;
    if (n?.failed)
      active.set(key('failed_run', p.pipeline), { incident: 'failed_run', subject: p.pipeline, detail: `pipeline ${p.pipeline}: run failed: ${n.failed}` });
    else
      cleared.set(key('failed_run', p.pipeline), n ? `pipeline ${p.pipeline}: a run passed (load at ${iso(n.at)})` : `pipeline ${p.pipeline}: no failed run`);
    const lag = p.lastSuccessAt === null ? null : now - p.lastSuccessAt;
    if (lag !== null && p.errorAfterMs !== null && lag > p.errorAfterMs)
      active.set(key('stale', p.pipeline), {
        incident: 'stale',
        subject: p.pipeline,
        detail: `pipeline ${p.pipeline}: no successful load for ${humanMs(lag)} (error_after ${humanMs(p.errorAfterMs)}; last at ${iso(p.lastSuccessAt!)})`,
      });
    else
      cleared.set(
        key('stale', p.pipeline),
        p.lastSuccessAt === null ? `pipeline ${p.pipeline}: no successful load yet` : `pipeline ${p.pipeline}: a load landed at ${iso(p.lastSuccessAt)}`,
      );
  }
  for (const s of facts.failingSources) {
    const k = key('source_failing', s.source);
    if (now - s.failingSince >= sourceFailingMs)
      active.set(k, {
        incident: 'source_failing',
        subject: s.source,
        detail: `source ${s.source}: failing for ${humanMs(now - s.failingSince)} (since ${iso(s.failingSince)})${s.lastError ? `: ${s.lastError}` : ''}`,
      });
    else cleared.set(k, `source ${s.source}: failing for less than ${humanMs(sourceFailingMs)}`);
  }
  const watched = new Set(facts.pipelines.map((p) => p.pipeline));
  const out: IncidentEvent[] = [];
  const isOpen = new Set(open.map((o) => key(o.incident, o.subject)));
  for (const [k, a] of active) if (!isOpen.has(k)) out.push({ id: incidentId(a.incident, a.subject, now), ...a, event: 'opened', at: now });
  for (const o of open) {
    const k = key(o.incident, o.subject);
    if (active.has(k)) continue;
    const detail =
      cleared.get(k) ??
      (o.incident === 'source_failing'
        ? `source ${o.subject}: no longer failing`
        : watched.has(o.subject)
          ? `pipeline ${o.subject}: recovered`
          : `pipeline ${o.subject}: no longer watched (not in the project file's pipelines)`);
    out.push({ ...o, event: 'resolved', at: now, detail });
  }
  return out;
}

/** The notice's one line: `[newsflow] OPENED stale: pipeline ukraine: no successful load for 1h 1m (…)`. */
export const noticeText = (e: Pick<IncidentEvent, 'event' | 'incident' | 'detail'>): string =>
  `[newsflow] ${e.event === 'opened' ? 'OPENED' : 'RESOLVED'} ${e.incident}: ${e.detail}`;
