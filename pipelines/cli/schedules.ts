/** The Temporal schedules declared in pipelines/schedules: `schedule apply|list|trigger|backfill|delete`. */
import type { Command } from 'commander';
import { temporalEndpoint } from '../temporal/index.js';
import { temporalClient } from '../worker/index.js';
import { CliError, dataDirOf, dataDirOpt, table } from './shared.js';

/** A client of the server of TEMPORAL_ADDRESS (these commands never start one). */
async function withTemporal<T>(dataDir: string | undefined, fn: (c: Awaited<ReturnType<typeof temporalClient>>) => Promise<T>): Promise<T> {
  if (!process.env.TEMPORAL_ADDRESS)
    throw new CliError('set TEMPORAL_ADDRESS to the Temporal server (newsflow start prints it), e.g. TEMPORAL_ADDRESS=127.0.0.1:7233');
  const ep = await temporalEndpoint({ dataDir: dataDirOf(dataDir) });
  return fn(await temporalClient(ep));
}

export function register(program: Command): void {
  const schedule = program.command('schedule').description('Temporal schedules declared in pipelines/schedules');
  schedule
    .command('apply')
    .description("make the server's schedules match the declaration (idempotent)")
    .option(...dataDirOpt)
    .action(async (o: { dataDir?: string }) => {
      const { applySchedules, schedulesFromEnv } = await import('../schedules/index.js');
      const schedules = schedulesFromEnv(process.env);
      console.log(JSON.stringify(await withTemporal(o.dataDir, (c) => applySchedules(c, schedules))));
    });
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
