/** The service: `serve`, `seed`, `start` (the main job). */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { packageRoot } from '../../lib/package-root.js';
import { CliError, dataDirOpt, floatArg, intArg, metricsPortOpt, verboseOpt } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const pre = () => import('../run/preflight.js');

// the work is imported when a command runs: `newsflow --help` and other commands load no service
const work = () => import('../run/serve.js');
const job = () => import('../run/main-job.js');

/** ../shared/data beside the repository, when it is there. */
function defaultCorpus(): string | undefined {
  const p = path.resolve(packageRoot(), '..', 'shared', 'data');
  return fs.existsSync(p) ? p : undefined;
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('run the API service')
    .option('--port <port>', 'port (default: $NEWSFLOW_PORT or 8080)', intArg('--port'))
    .option('--host <host>', 'interface to bind (default: $NEWSFLOW_HOST or 127.0.0.1)')
    .option(...dataDirOpt)
    .option('--limits <spec>', 'rate limits, e.g. distribution=0.2:5:2,news=10:20:10 (GROUP=RATE:BURST:CONCURRENCY)')
    .option('--seed <path>', 'load a news corpus first (default: $NEWSFLOW_CORPUS)')
    .option('--rebase-dates', 'shift dates so the newest article of each source is now')
    .option('--replay <speed>', 'release articles in publication order at SPEED x real time', floatArg('--replay'))
    .option(
      '--retention <days>',
      "articles published longer ago leave the search index, e.g. 90d, or keep-all (default: the project file's service.retention, $NEWSFLOW_RETENTION over it, else keep-all)",
    )
    .option(
      '--archive',
      'past the retention, export articles to Parquet under <data dir>/archive/news and delete them from the store (default: the store keeps them)',
    )
    .action(
      async (o: {
        port?: number;
        host?: string;
        dataDir?: string;
        limits?: string;
        seed?: string;
        rebaseDates?: boolean;
        replay?: number;
        retention?: string;
        archive?: boolean;
      }) => {
        const { serve } = await work();
        const project = (await import('../config/index.js')).useProject();
        await serve({
          port: o.port,
          host: o.host,
          dataDir: o.dataDir,
          limitsText: o.limits,
          seed: o.seed ?? project.corpus,
          rebaseDates: o.rebaseDates,
          replay: o.replay,
          // the flags win over the project's service: key (NEWSFLOW_RETENTION / NEWSFLOW_ARCHIVE over the file)
          retention: o.retention ?? project.service.retention,
          archive: o.archive ?? project.service.archive,
        });
      },
    );

  program
    .command('seed')
    .description('load a news corpus into the service store (idempotent: unchanged articles are skipped)')
    .option('--corpus <path>', 'corpus directory or file (default: $NEWSFLOW_CORPUS)')
    .option('--rebase-dates', 'shift dates so the newest article of each source is now, keeping spacing')
    .option(...dataDirOpt)
    .option('--json', 'print the result as JSON')
    .action(async (o: { corpus?: string; rebaseDates?: boolean; dataDir?: string; json?: boolean }) => {
      const corpus = o.corpus ?? (await import('../config/index.js')).useProject().corpus;
      if (!corpus) throw new CliError('no corpus: pass --corpus PATH (for example ../shared/data) or set NEWSFLOW_CORPUS');
      const { seedStore } = await work();
      const r = await seedStore({ corpus, rebaseDates: o.rebaseDates, dataDir: o.dataDir });
      console.log(
        o.json
          ? JSON.stringify(r)
          : `read ${r.read}, enriched ${r.enriched} (${r.inserted} new, ${r.updated} updated), unchanged ${r.unchanged}; store holds ${r.total} articles, ${r.indexed} indexed`,
      );
    });

  program
    .command('start')
    .description('the main job: the service (corpus in replay), a Temporal dev server, the worker, the schedules; each pipeline triggered once')
    .option('--port <port>', 'service port', intArg('--port'))
    .option('--corpus <path>', 'news corpus (default: $NEWSFLOW_CORPUS, else ../shared/data beside the repo)')
    .option('--replay <speed>', 'replay speed: corpus time per real time', floatArg('--replay'), 3600)
    .option(
      '--temporal <kind>',
      "dev (the CLI dev server on SQLite) or postgres (the Temporal server on PostgreSQL; build it once with: npx newsflow temporal install); default: the project's temporal.server, NEWSFLOW_TEMPORAL, else dev",
    )
    .option(...dataDirOpt)
    .option(...verboseOpt)
    .option(...metricsPortOpt)
    .action(async (o: { port?: number; dataDir?: string; corpus?: string; replay: number; verbose?: boolean; temporal?: string; metricsPort?: number }) => {
      if (o.temporal !== undefined && !['dev', 'postgres'].includes(o.temporal)) throw new CliError(`--temporal must be dev or postgres; got ${o.temporal}`);
      const project = (await import('../config/index.js')).useProject();
      const corpus = o.corpus ?? project.corpus ?? defaultCorpus();
      if (!corpus && !(await pre()).remoteApi(project))
        throw new CliError('no corpus found: pass --corpus PATH or set NEWSFLOW_CORPUS (the shared data folder, e.g. ../shared/data)');
      const { mainJob } = await job();
      await mainJob({ ...o, corpus });
    });
}
