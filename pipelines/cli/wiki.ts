/** The encyclopedia: `wiki load`. */
import fs from 'node:fs';
import type { Command } from 'commander';
import { CliError, dataDirOpt } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const svc = () => import('../../service/index.js');

export function register(program: Command): void {
  const wiki = program.command('wiki').description('the encyclopedia behind GET /v1/wiki/search');
  wiki
    .command('load <path>')
    .description(
      'load MediaWiki XML exports (.xml, .xml.bz2; streamed) and saved Wikipedia HTML pages, a file or a folder, into the service store: main-namespace articles only, redirects skipped, chunked by section and embedded with the news model; unchanged articles are skipped (loading twice changes nothing). While a service runs on the data dir it loads them (its admin routes) and this follows its progress.',
    )
    .option(...dataDirOpt)
    .option('--json', 'print the result as JSON')
    .action(async (p: string, o: { dataDir?: string; json?: boolean }) => {
      if (!fs.existsSync(p)) throw new CliError(`no such file or folder: ${p}`);
      let last = 0;
      const r = await (await svc())
        .loadWikiStore({
          path: p,
          dataDir: o.dataDir,
          onProgress: (rep) => {
            if (!o.json && process.stderr.isTTY && Date.now() - last > 1000) {
              last = Date.now();
              process.stderr.write(`\r${rep.pages} pages read, ${rep.loaded} articles loaded, ${rep.unchanged} unchanged`);
            }
          },
        })
        .catch(async (e: Error) => {
          throw e instanceof (await svc()).WikiLoadError ? new CliError(e.message) : e;
        });
      if (!o.json && process.stderr.isTTY && last) process.stderr.write('\n');
      for (const line of await (await svc()).describeWikiProblems(r.problems)) console.error(`error: ${line}`);
      console.log(
        o.json
          ? JSON.stringify(r)
          : `${r.via}: ${r.files} file(s), ${r.pages} pages: ${r.loaded} articles loaded (${r.chunks} chunks), ${r.unchanged} unchanged, ${r.redirects} redirects and ${r.otherNamespaces} pages of other namespaces skipped${r.notArticles ? `, ${r.notArticles} files not wiki articles` : ''}`,
      );
      if (r.problems.length) throw new CliError(`${r.problems.length} page(s) or file(s) could not be read (listed above); the rest was loaded`);
    });
}
