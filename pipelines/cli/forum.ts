/** Forum threads: `forum load`. */
import type { Command } from 'commander';
import path from 'node:path';
import { CliError, dataDirOf, dataDirOpt } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const svc = () => import('../../service/index.js');

export function register(program: Command): void {
  const forum = program.command('forum').description('forum threads (forum search, stories reddit)');
  forum
    .command('load <path>')
    .description(
      'load forum threads into the service store: Pushshift NDJSON (submissions and comments; .ndjson/.jsonl, or .zst), ' +
        'or the shared reddit-post-comment folder; a directory is walked. Idempotent: unchanged threads and comments are skipped. ' +
        'Unreadable lines are named (file:line) and skipped; the rest is loaded and the exit code is 1. ' +
        'Through the running service of the data dir when one runs (it indexes the threads at once), else into the store (embeddings are computed when the service next opens it).',
    )
    .option(...dataDirOpt)
    .option('--json', 'print the result as JSON')
    .action(async (p: string, o: { dataDir?: string; json?: boolean }) => {
      // through the running service of the data dir (it indexes what it loads at once), else into the store
      const service = await svc();
      const r = (await service
        .withAdmin(dataDirOf(o.dataDir), (k) => k.forumLoad(path.resolve(p)), service.storeOps)
        .catch((e: Error) => {
          throw new CliError(`forum load failed: ${e.message}`);
        })) as unknown as Awaited<ReturnType<Awaited<ReturnType<typeof service.openForumStore>>['load']>>;
      for (const x of r.problems) console.error(`${x.file}${x.line === null ? '' : `:${x.line}`}: ${x.message}`);
      if (o.json) console.log(JSON.stringify(r));
      else {
        const c = (k: typeof r.threads) => `${k.read} read, ${k.inserted} new, ${k.updated} updated, ${k.unchanged} unchanged`;
        console.log(
          `${r.files} file(s); threads: ${c(r.threads)}; comments: ${c(r.comments)}; enriched ${r.enriched}; the store holds ${r.stored.threads} threads, ${r.stored.comments} comments`,
        );
      }
      if (r.problems.length) throw new CliError(`${r.problems.length} line(s) or file(s) could not be read (named above); everything else was loaded`);
    });
}
