/** Feeds and sitemaps the service is filled from: `sources add|list|remove|test`. */
import type { Command } from 'commander';
import { CliError, dataDirOpt, intArg, printable, printableJson, table, warehouseOf, warehouseOpt } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
import { currentProject, fetchPolicyOf } from '../config/current.js';
const work = () => import('../run/sources.js');

export function register(program: Command): void {
  const sources = program.command('sources').description('feeds and sitemaps polled for new articles (the project file declares more)');
  sources
    .command('add <url>')
    .description('poll a feed or sitemap (RSS, Atom, JSON Feed, sitemap, sitemap index) from the next round on')
    .option('--name <name>', 'the source key (default: from the URL)')
    .option('--every <duration>', 'a fixed poll interval instead of the adaptive one (e.g. 15m)')
    .option('--language <code>', 'the language of its items when they do not say (e.g. en)')
    .option('--tag <tag...>', 'labels kept with the source')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (url: string, o: { name?: string; every?: string; language?: string; tag?: string[]; warehouse?: string; dataDir?: string }) => {
      const r = await (await work()).addSource(warehouseOf(o), { url, name: o.name, poll_interval: o.every, language: o.language, tags: o.tag });
      console.log(`${r.added ? 'added' : 'updated'} source ${r.source}: ${url}`);
    });
  sources
    .command('list')
    .description('the sources and their health: status, last success, failures in a row, items per day, interval, next poll')
    .option('--json', 'one JSON object per line')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (o: { json?: boolean; warehouse?: string; dataDir?: string }) => {
      const rows = await (await work()).listSources(warehouseOf(o));
      console.log(o.json ? rows.map((r) => printableJson(r)).join('\n') : table(rows));
    });
  sources
    .command('remove <name>')
    .description('stop polling a source added with `sources add` (its polls and items stay in the warehouse)')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (name: string, o: { warehouse?: string; dataDir?: string }) => {
      await (await work()).removeSource(warehouseOf(o), name);
      console.log(`removed source ${name}`);
    });
  sources
    .command('test <url...>')
    .description('fetch each feed once as the poller would and print what it would index; exits 1 naming the broken ones')
    .option('--delay <ms>', 'wait between two requests to one host (politeness)', intArg('--delay'), 1000)
    .action(async (urls: string[], o: { delay: number }) => {
      const broken: string[] = [];
      for await (const { url, poll: p } of (await work()).testSources(urls, { delayMs: o.delay, policy: fetchPolicyOf(currentProject()!) })) {
        // a feed's title, items and errors are the feed's text: printed without control characters (no terminal escape gets through)
        const lines = (await work()).describePoll(url, p).map(printable);
        if (p.status === 'ok') console.log(lines.join('\n'));
        else {
          broken.push(url);
          console.error(`error: ${lines[0]}`);
        }
      }
      if (broken.length) throw new CliError(`${broken.length} of ${urls.length} feeds cannot be read: ${printable(broken.join(', '))}`);
    });
}
