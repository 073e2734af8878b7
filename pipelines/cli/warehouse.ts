/** The warehouse: `sql`, `export`. */
import path from 'node:path';
import type { Command } from 'commander';
import { exportParquet, type SqlFormat } from '../../warehouse/read.js';
import { sqlShell } from '../sqlShell.js';
import { CliError, dataDirOpt, warehouseOf, warehouseOpt } from './shared.js';

const FORMATS: SqlFormat[] = ['table', 'csv', 'json', 'arrow'];

export function register(program: Command): void {
  program
    .command('sql [query]')
    .description('run SQL on the warehouse (a REPL without a query); safe while pipelines are landing')
    .option('--format <f>', 'table, csv, json or arrow', 'table')
    .option('--out <file>', 'write to a file (arrow output needs it unless stdout is redirected)')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (query: string | undefined, o: { format: string; out?: string; warehouse?: string; dataDir?: string }) => {
      if (!FORMATS.includes(o.format as SqlFormat)) throw new CliError(`unknown --format "${o.format}"; use table, csv, json or arrow`);
      if (!(await sqlShell({ warehouseDir: warehouseOf(o), query, format: o.format as SqlFormat, out: o.out }))) process.exitCode = 1;
    });

  program
    .command('export')
    .description('export warehouse tables to Parquet, hive-partitioned by month (written atomically)')
    .option('--table <name>', 'one table (default: all)')
    .option('--out <dir>', 'output folder', './export')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (o: { table?: string; out: string; warehouse?: string; dataDir?: string }) => {
      const counts = await exportParquet(warehouseOf(o), path.resolve(o.out), o.table ? [o.table] : undefined);
      console.log(JSON.stringify(counts));
    });
}
