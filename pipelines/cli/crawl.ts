/** `newsflow crawl`: index web pages on the running service and wait for the job. */
import type { Command } from 'commander';
import { CliError } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const work = () => import('../api/index-urls.js');

const when = (name: string, v: string) => {
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(t)) throw new CliError(`${name} must be an ISO date or date-time, e.g. 2024-05-01 or 2024-05-01T10:00:00Z; got ${v}`);
  return new Date(t).toISOString();
};

export function register(program: Command): void {
  program
    .command('crawl <urls...>')
    .description(
      "index web pages on the service (POST /v1/news/index_urls at $NEWSFLOW_API_URL with $NEWSFLOW_API_KEY, news scope): fetched under the service's fetch policy, articles added to the news, every page to the web search index; waits and prints each URL's status",
    )
    .option(
      '--start <time>',
      'earliest pub_date given to a page (its published time, else the fetch time, is bounded to --start..--end)',
      '1970-01-01T00:00:00Z',
    )
    .option('--end <time>', 'latest pub_date (default: now)')
    .option('--skip-dedupe', 'index a page again although its URL is indexed already')
    .option('--no-wait', 'print the job id and return at once (GET /v1/news/index_urls/{job_id} reports it)')
    .option('--json', 'print the job as JSON')
    .option('--url <url>', 'API base URL (default: $NEWSFLOW_API_URL or http://127.0.0.1:8080)')
    .option('--key <key>', 'API key (default: $NEWSFLOW_API_KEY)')
    .action(async (urls: string[], o: { start: string; end?: string; skipDedupe?: boolean; wait: boolean; json?: boolean; url?: string; key?: string }) => {
      const api = (await import('../config/index.js')).useProject().api;
      if (!(o.key ?? api.key)) throw new CliError('an API key is needed: --key or NEWSFLOW_API_KEY (create one with: newsflow keys create --scopes news ...)');
      const start = when('--start', o.start);
      const end = o.end ? when('--end', o.end) : new Date().toISOString();
      if (Date.parse(end) < Date.parse(start)) throw new CliError(`--end (${end}) is before --start (${start})`);
      try {
        const status = await (await work()).crawl({
          urls,
          start,
          end,
          skipDedupe: o.skipDedupe,
          wait: o.wait,
          json: o.json,
          baseUrl: o.url ?? api.url,
          apiKey: o.key ?? api.key,
        });
        if (status === 'failed') process.exitCode = 1;
      } catch (e) {
        if (e instanceof (await work()).CrawlError) throw new CliError(e.message);
        throw e;
      }
    });
}
