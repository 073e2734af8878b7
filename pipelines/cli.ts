/**
 * The `newsflow` command line: the service, its admin commands and the pipelines, one file per
 * command group under cli/. Errors say what was wrong and how to fix it, and exit non-zero.
 */
import { Command, CommanderError } from 'commander';
import { StoreLockedError } from '../service/store/db.js';
import { AdminInputError } from '../service/auth/keys.js';
import { AdminRefused } from './admin.js';
import { CorpusError } from '../service/corpus/read.js';
import { ServiceConfigError } from '../service/config.js';
import { WarehouseReadError } from '../warehouse/read.js';
import { RunFailedError, TemporalSetupError } from './temporal.js';
import { PreflightError } from './preflight.js';
import { CliError } from './cli/shared.js';
import * as service from './cli/service.js';
import * as admin from './cli/admin.js';
import * as pipelines from './cli/pipelines.js';
import * as schedules from './cli/schedules.js';
import * as alerts from './cli/alerts.js';
import * as warehouse from './cli/warehouse.js';
import * as spec from './cli/spec.js';
import * as research from './cli/research.js';
import * as crawl from './cli/crawl.js';
import * as temporal from './cli/temporal.js';
import { PostgresSetupError } from './postgres.js';
import * as forum from './cli/forum.js';
import * as wiki from './cli/wiki.js';

// >>> feeds (issue 27): `newsflow sources add|list|remove|test`, registered after the groups below
import * as sourcesCli from './cli/sources.js';

export function buildCli(): Command {
  const program = new Command('newsflow')
    .description('newsflow: news-intelligence API service and data-pipeline toolkit')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // the order of --help
  for (const group of [service, admin, research, crawl, forum, wiki, pipelines, schedules, alerts, warehouse, temporal, spec]) group.register(program);
  sourcesCli.register(program); // feeds (issue 27)
  // <<< feeds
  return program;
}

export async function main(argv = process.argv): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    if (
      e instanceof AdminInputError ||
      e instanceof AdminRefused ||
      e instanceof StoreLockedError ||
      e instanceof CliError ||
      e instanceof CorpusError ||
      e instanceof TemporalSetupError ||
      e instanceof PostgresSetupError ||
      e instanceof WarehouseReadError ||
      e instanceof PreflightError ||
      e instanceof RunFailedError ||
      e instanceof ServiceConfigError
    ) {
      console.error(`error: ${e.message}`);
      process.exitCode = 1;
      // within seconds, even if something we started still holds the event loop
      setTimeout(() => process.exit(1), 3000).unref();
      return;
    }
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(`error: ${(e as Error).message}; choose another --port`);
      process.exitCode = 1;
      return;
    }
    // a failure nobody foresaw: still one line, no stack trace unless asked for
    console.error(`error: ${(e as Error)?.message ?? String(e)} (unexpected; NEWSFLOW_DEBUG=1 prints the stack trace)`);
    if (process.env.NEWSFLOW_DEBUG) console.error((e as Error)?.stack);
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 3000).unref();
  }
}

await main();
