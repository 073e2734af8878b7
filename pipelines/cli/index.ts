/**
 * The `newsflow` command line: the service, its admin commands and the pipelines, one file per
 * command group in this folder (bin/newsflow.js calls `main`). Errors say what was wrong and how to fix it, and exit non-zero.
 *
 * pipelines/, room by room (a command's file reads like its --help, then calls one of these):
 * - cli/: the commands, one file per group (config, service, admin, research, crawl, forum, wiki,
 *   pipelines, schedules, sources, alerts, warehouse, dbt, temporal, spec); cli/shared.ts their common
 *   options; cli/reference.ts docs/cli.md from them
 * - config/: the project file (newsflow.yaml): its schema, loading, the project a command runs in
 * - run/: what the commands run: one workflow now and the worker (run-once.ts), the main job of
 *   `start` (main-job.ts), `serve` and `seed` (serve.ts), research runs (deep-research.ts), the
 *   alert sync (alert-sync.ts), the graph file, the SQL shell; the preflight and progress bars
 * - api/: one-off calls to the API through client/: ask (chat), crawl (index-urls.ts)
 * - schedules/: the schedules of the project's pipelines (declare.ts) and of the feed poller (feeds.ts)
 * - temporal/: the Temporal server a command talks to: dev server, server on PostgreSQL, ports,
 *   shutdown (index.ts)
 * - worker/: the worker, its runtime and its log (index.ts)
 * The service is reached through service/index.ts only.
 */
import { Command, CommanderError } from 'commander';
import * as service from './service.js';
import * as admin from './admin.js';
import * as pipelines from './pipelines.js';
import * as schedules from './schedules.js';
import * as alerts from './alerts.js';
import * as warehouse from './warehouse.js';
import * as dbt from './dbt.js';
import * as spec from './spec.js';
import * as research from './research.js';
import * as crawl from './crawl.js';
import * as temporal from './temporal.js';
import * as forum from './forum.js';
import * as wiki from './wiki.js';
import * as config from './config.js';
import * as sources from './sources.js';
import { setConfigFlag } from '../config/current.js';
import { UserError } from '../../lib/errors.js';

/** Commands that run without a project: they write, check or print one. */
const NO_PROJECT = new Set(['init', 'config check', 'openapi', 'spec']);

export function buildCli(): Command {
  const program = new Command('newsflow')
    .description('newsflow: news-intelligence API service and data-pipeline toolkit')
    .showHelpAfterError('(run with --help for usage)')
    .option('--config <file>', 'the project file (default: $NEWSFLOW_CONFIG, else newsflow.yaml in this folder)')
    .exitOverride();
  program.hook('preAction', async (_, command) => {
    setConfigFlag(command.optsWithGlobals().config as string | undefined);
    // every command but these runs in its project: a bad project file stops it with one line per problem
    const name = [command.parent?.name(), command.name()].filter((n) => n && n !== 'newsflow').join(' ');
    if (!NO_PROJECT.has(name)) await (await import('../config/cached.js')).loadProjectCached();
  });
  // the order of --help
  for (const group of [config, service, admin, research, crawl, forum, wiki, pipelines, schedules, sources, alerts, warehouse, dbt, temporal, spec])
    group.register(program);
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
    if (e instanceof UserError) {
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
