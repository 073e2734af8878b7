/**
 * A pipeline's checks (the project file's `checks:`), evaluated on a load when its workflow has
 * landed it and before it records the `_loads` row: the row records each check's outcome
 * (`_loads.checks`, and `_loads.check_failed`, the failure's message), and a failed check then
 * fails the run as non-retryable (ApplicationFailure of type CheckFailed), naming the check:
 * `check min_rows failed for pipeline ukraine: 0 rows < 1`. Pure and deterministic (it runs in the
 * workflow sandbox); no check given, nothing is evaluated and nothing is thrown.
 *
 * - `min_rows: N`: the load's rows received (what the API answered for the run) must be at least N.
 *   Received, not inserted: a run over a window another run already landed inserts nothing and
 *   is healthy (landing is idempotent), while an API that answers nothing is what the check is for.
 * - `invariants: enforce`: every invariant the load records as a boolean must be true (null: not
 *   applicable to this load; figures are recorded, not enforced). `record` (the default) records
 *   them and enforces nothing, as before.
 */
import { ApplicationFailure } from '@temporalio/workflow';

/** The checks of a pipeline, as the project file gives them (pipelines/config/fields.ts). */
export interface LoadChecksConfig {
  min_rows?: number;
  invariants?: 'enforce' | 'record';
}

export interface CheckResult {
  check: string;
  ok: boolean;
  detail: string;
}

/** What `_loads` records of a load's checks. */
export interface LoadChecks {
  results: CheckResult[];
  /** the failure's message (the first failed check's), null when every check passed */
  failed: string | null;
}

/** Evaluate `cfg` on a load; undefined when no check is configured. */
export function evaluateChecks(
  pipeline: string,
  cfg: LoadChecksConfig | undefined,
  load: { received: number },
  invariants: Record<string, unknown>,
): LoadChecks | undefined {
  if (!cfg || (cfg.min_rows === undefined && cfg.invariants !== 'enforce')) return undefined;
  const results: CheckResult[] = [];
  if (cfg.min_rows !== undefined) {
    const ok = load.received >= cfg.min_rows;
    results.push({ check: 'min_rows', ok, detail: `${load.received} rows ${ok ? '>=' : '<'} ${cfg.min_rows}` });
  }
  if (cfg.invariants === 'enforce') {
    const broken = Object.entries(invariants)
      .filter(([, v]) => v === false)
      .map(([k]) => k);
    const held = Object.values(invariants).filter((v) => v === true).length;
    results.push({
      check: 'invariants',
      ok: broken.length === 0,
      detail: broken.length ? `${broken.join(', ')} ${broken.length === 1 ? 'is' : 'are'} false` : `${held} held`,
    });
  }
  const bad = results.find((r) => !r.ok);
  return { results, failed: bad ? `check ${bad.check} failed for pipeline ${pipeline}: ${bad.detail}` : null };
}

/** The run's end when a check failed: non-retryable (no retry lands other rows), naming the check. */
export function failOnChecks(checks: LoadChecks | undefined): void {
  if (!checks?.failed) return;
  throw ApplicationFailure.create({
    message: checks.failed,
    type: 'CheckFailed',
    nonRetryable: true,
    details: [checks.results.filter((r) => !r.ok)],
  });
}
