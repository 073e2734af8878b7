/** The alert runner: `alerts sync`, `alerts status`. */
import type { Command } from 'commander';
import { CliError, dataDirOpt, table, verboseOpt, warehouseOf, warehouseOpt } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const work = () => import('../run/alert-sync.js');

export function register(program: Command): void {
  const alerts = program.command('alerts').description('the alert runner: one Temporal schedule per active alert, deliveries to its triggers');
  alerts
    .command('sync')
    .description('make the per-alert schedules match the active alerts now (needs TEMPORAL_ADDRESS; checks the API and key first)')
    .option(...dataDirOpt)
    .option(...verboseOpt)
    .action(async (o: { dataDir?: string; verbose?: boolean }) => {
      if (!/:\d+$/.test((await import('../config/index.js')).useProject().temporal.server))
        throw new CliError('set TEMPORAL_ADDRESS to the Temporal server the alert schedules live on (newsflow start prints it)');
      console.log(JSON.stringify(await (await work()).syncAlerts(o.dataDir, { verbose: o.verbose })));
    });
  alerts
    .command('status')
    .description('alerts with their schedule, last run and deliveries (from the warehouse; schedules when TEMPORAL_ADDRESS is set)')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (o: { warehouse?: string; dataDir?: string }) => {
      const rows = await (await work()).alertStatus(warehouseOf(o), o.dataDir);
      console.log(table(rows.map((r) => ({ ...r, alert_id: String(r.alert_id).slice(0, 8) }))));
    });
}
