/** What the windowed kinds' CLI runs share: `--from`/`--to` as an ISO window, checked. */
import { UserError } from '../../../lib/errors.js';
import type { RunOptions } from './define.js';

/** A mistake in `newsflow run`'s options: one line, what is wrong and how to fix it. */
export class RunOptionError extends UserError {}

/** --from and --to, required, as ISO times with from <= to. */
export function windowOf(kind: string, o: RunOptions): { from: string; to: string } {
  if (!o.from || !o.to) throw new RunOptionError(`--from and --to are required for ${kind}, e.g. --from 2022-07-01 --to 2022-07-11`);
  const from = Date.parse(o.from);
  const to = Date.parse(o.to);
  if (Number.isNaN(from) || Number.isNaN(to)) throw new RunOptionError('--from and --to must be ISO dates, e.g. 2026-01-15 or 2026-01-15T06:00:00Z');
  if (to < from) throw new RunOptionError(`--from (${o.from}) is after --to (${o.to})`);
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}
