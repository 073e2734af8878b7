/** The Temporal schedules of the project's pipelines: `schedule apply [--dry-run]|list|trigger|backfill|delete`. */
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { SchedulePlan } from '../schedules/index.js';
import type { Project } from '../config/index.js';
import { CliError, dataDirOf, dataDirOpt, table, warehouseOf } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const runtime = () => import('../worker/index.js');

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const temporal = () => import('../../temporal/index.js');

/** The plan as the terminal shows it: one line per schedule, the changed arguments under each update. */
export function planText(plan: SchedulePlan, dryRun: boolean): string {
  const n = (k: number, w: string) => `${k} to ${w}`;
  const lines = [
    `plan${dryRun ? ' (dry run: nothing changes)' : ''}: ${n(plan.create.length, 'create')}, ${n(plan.update.length, 'update')}, ${n(plan.delete.length, 'delete')}, ${plan.unchanged.length} unchanged`,
  ];
  for (const d of plan.create) lines.push(`  + create ${d.id}: ${d.description}`);
  for (const u of plan.update) {
    lines.push(`  ~ update ${u.decl.id}: ${u.decl.description}`);
    for (const c of u.changes) lines.push(`      ${c}`);
  }
  for (const id of plan.delete) lines.push(`  - delete ${id} (no longer declared; what it landed stays in the warehouse)`);
  return lines.join('\n');
}

const planJson = (plan: SchedulePlan) => ({
  create: plan.create.map((d) => d.id),
  update: plan.update.map((u) => ({ id: u.decl.id, changes: u.changes })),
  delete: plan.delete,
  unchanged: plan.unchanged,
});

/** A client of the running Temporal server of the project (temporal.server host:port, or TEMPORAL_ADDRESS); these commands never start one. */
async function withTemporal<T>(dataDir: string | undefined, fn: (c: Client) => Promise<T>): Promise<T> {
  const { useProject } = await import('../config/index.js');
  const project = useProject();
  if (!/:\d+$/.test(project.temporal.server))
    throw new CliError(
      'these commands talk to a running Temporal server: set temporal.server: host:port in newsflow.yaml or TEMPORAL_ADDRESS (newsflow start prints it), e.g. TEMPORAL_ADDRESS=127.0.0.1:7233',
    );
  const ep = await (await temporal()).temporalEndpoint({ dataDir: dataDirOf(dataDir), temporal: project.temporal });
  return fn(await (await runtime()).temporalClient(ep));
}

export function register(program: Command): void {
  registerStatus(program);
  registerSchedule(program);
}

/** `status`, `trace`: how the pipelines and one load ran. */
function registerStatus(program: Command): void {
  program
    .command('status')
    .description(
      'one line per declared pipeline schedule and the feed sources: schedule state, last run, last load with its rows, lag against error_after, failures in a row, the last error; exits 0 healthy, 1 failing, 2 stale',
    )
    .option('--json', 'the report as JSON')
    .option(...dataDirOpt)
    .action(async (o: { json?: boolean; dataDir?: string }) => {
      const { useProject } = await import('../config/index.js');
      const { declareSchedules } = await import('../schedules/index.js');
      const { projectStatus, statusLines } = await import('../run/status.js');
      const { openReader } = await import('../../warehouse/read.js');
      const reader = await openReader(warehouseOf({ dataDir: o.dataDir })).catch(() => null);
      try {
        const report = await withTemporal(o.dataDir, (c) =>
          projectStatus(c, declareSchedules(useProject().pipelines), reader ? (sql) => reader.all(sql) : null),
        );
        console.log(o.json ? JSON.stringify(report) : statusLines(report));
        process.exitCode = report.exitCode;
      } finally {
        reader?.close();
      }
    });

  program
    .command('trace <load>')
    .description(
      "one load as it ran: its _loads row (rows, API requests, retries, 429s, credits, invariants) and its workflow run's activities from Temporal's history (attempts, durations, errors); <load> is a load id or a workflow id (its newest load)",
    )
    .option('--json', 'the trace as JSON')
    .option(...dataDirOpt)
    .action(async (id: string, o: { json?: boolean; dataDir?: string }) => {
      const { traceLoad, traceLines, TraceError } = await import('../run/trace.js');
      const { openReader } = await import('../../warehouse/read.js');
      const reader = await openReader(warehouseOf({ dataDir: o.dataDir })).catch((e: Error) => {
        throw new CliError(`no warehouse to read _loads from: ${e.message}`);
      });
      try {
        const rows = (sql: string) => reader.all(sql);
        const t = await withTemporal(o.dataDir, (c) => traceLoad(c, rows, id)).catch(async (e: unknown) => {
          if (e instanceof TraceError) throw new CliError(e.message);
          // no Temporal server to ask: the warehouse's part, said so
          if (e instanceof CliError) return { ...(await traceLoad(null, rows, id)), historyMissing: e.message };
          throw e;
        });
        console.log(o.json ? JSON.stringify(t, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)) : traceLines(t));
      } catch (e) {
        if (e instanceof TraceError) throw new CliError(e.message);
        throw e;
      } finally {
        reader.close();
      }
    });
}

/** `schedule apply|list|trigger|backfill|delete`. */
function registerSchedule(program: Command): void {
  const schedule = program.command('schedule').description("Temporal schedules of the project file's pipelines");
  schedule
    .command('apply')
    .description("make the server's schedules match the project file: prints the plan (create, update with the changed arguments, delete), then applies it")
    .option('--dry-run', 'print the plan only; change nothing')
    .option('--json', 'the plan (and the result) as JSON')
    .option(...dataDirOpt)
    .action(scheduleApply);
  schedule
    .command('list')
    .option(...dataDirOpt)
    .action(async (o: { dataDir?: string }) => {
      const { listOurs } = await import('../schedules/index.js');
      const rows = await withTemporal(o.dataDir, async (c) =>
        Promise.all(
          (await listOurs(c)).map(async (s) => {
            const d = await c.schedule.getHandle(s.id).describe();
            return { id: s.id, paused: d.state.paused, next: d.info.nextActionTimes[0] ?? null, recent: d.info.recentActions.length };
          }),
        ),
      );
      console.log(table(rows));
    });
  schedule
    .command('trigger <id>')
    .option(...dataDirOpt)
    .action(async (id: string, o: { dataDir?: string }) => {
      await withTemporal(o.dataDir, (c) => c.schedule.getHandle(id).trigger());
      console.log(`triggered ${id}`);
    });
  schedule
    .command('backfill <id>')
    .requiredOption('--from <time>')
    .requiredOption('--to <time>')
    .option(...dataDirOpt)
    .action(async (id: string, o: { from: string; to: string; dataDir?: string }) => {
      const start = new Date(o.from);
      const end = new Date(o.to);
      if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || end < start)
        throw new CliError('--from and --to must be ISO dates with --from before --to');
      const { ScheduleOverlapPolicy } = await import('@temporalio/client');
      await withTemporal(o.dataDir, (c) => c.schedule.getHandle(id).backfill({ start, end, overlap: ScheduleOverlapPolicy.BUFFER_ALL }));
      console.log(`backfilling ${id} from ${start.toISOString()} to ${end.toISOString()}`);
    });
  schedule
    .command('delete <id>')
    .option(...dataDirOpt)
    .action(async (id: string, o: { dataDir?: string }) => {
      await withTemporal(o.dataDir, (c) => c.schedule.getHandle(id).delete());
      console.log(`deleted ${id}`);
    });
}

/** `schedule apply`: the plan, applied unless a dry run, and the feed poller's line. */
async function scheduleApply(o: { dataDir?: string; dryRun?: boolean; json?: boolean }): Promise<void> {
  const { useProject } = await import('../config/index.js');
  const { applyPlan, declareSchedules, pipelineScope, planSchedules } = await import('../schedules/index.js');
  const { noticesSchedules } = await import('../run/notices.js');
  const project = useProject();
  // the pipelines' schedules, and the notices' when the file sets notify:
  const declared = declareSchedules(project.pipelines);
  const schedules = [...declared, ...noticesSchedules(declared, project.notify)];
  await withTemporal(o.dataDir, async (c) => {
    const plan = await planSchedules(c, schedules, pipelineScope);
    const applied = o.dryRun ? null : await applyPlan(c, plan);
    // the feed poller: the file's sources into the warehouse (beside those `sources add` added), one schedule while any exists
    const feeds = await feedPoller(c, project, o);
    if (o.json) console.log(JSON.stringify({ plan: planJson(plan), ...(applied ? { applied } : {}), feeds }));
    else {
      console.log(planText(plan, o.dryRun ?? false));
      if (applied && (plan.create.length || plan.update.length || plan.delete.length))
        console.log(`applied: ${applied.created.length} created, ${applied.updated.length} updated, ${applied.deleted.length} deleted`);
      console.log(feeds);
    }
  });
}

/** The feed poller's line: on a dry run whether its schedule exists, else the file's sources applied. */
async function feedPoller(c: Client, project: Project, o: { dataDir?: string; dryRun?: boolean }): Promise<string> {
  const { FEED_SCHEDULE_ID, applyFeedSchedule } = await import('../schedules/index.js');
  if (o.dryRun) {
    const exists = await c.schedule
      .getHandle(FEED_SCHEDULE_ID)
      .describe()
      .then(
        () => true,
        () => false,
      );
    return `feed poller (${FEED_SCHEDULE_ID}): ${project.sources.length} source(s) in the project file; its schedule ${exists ? 'exists' : 'does not exist yet'}`;
  }
  const { Warehouse } = await import('../../warehouse/warehouse.js');
  const warehouse = await Warehouse.open(warehouseOf({ dataDir: o.dataDir }), (await import('../config/index.js')).lakeOf(project));
  try {
    const r = await applyFeedSchedule(c, { warehouse, sources: project.sources });
    const s = r.sources;
    return `feed poller (${FEED_SCHEDULE_ID}): sources ${s.added.length} added, ${s.updated.length} updated, ${s.removed.length} removed; schedule ${r.schedule.created.length ? 'created' : r.schedule.deleted.length ? 'deleted (no source)' : r.schedule.unchanged.length ? 'unchanged' : r.schedule.updated.length ? 'updated' : 'none (no source)'}`;
  } finally {
    warehouse.close();
  }
}
