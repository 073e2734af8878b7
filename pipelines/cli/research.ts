/** Research with the API: `ask` (grounded chat) and `research` (a DeepNews research run, landed). */
import type { Command } from 'commander';
import { CliError, dataDirOpt, intArg, list, verboseOpt } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const work = () => import('../api/ask.js');

function json(v: string, flag = '--filters'): Record<string, unknown> {
  try {
    const o = JSON.parse(v) as unknown;
    if (o && typeof o === 'object' && !Array.isArray(o)) return o as Record<string, unknown>;
  } catch {
    /* reported below */
  }
  throw new CliError(`${flag} must be a JSON object of search parameters, e.g. '{"categories":["Politics"],"n_articles":5}'; got ${v}`);
}

export function register(program: Command): void {
  program
    .command('ask <question>')
    .description('ask the news a question (POST /v1/openai/chat/completions at $NEWSFLOW_API_URL with $NEWSFLOW_API_KEY): the answer, then its references')
    .option('--stream', 'print the answer as it is written')
    .option('--filters <json>', 'search parameters for retrieval (filter_params), as a JSON object')
    .option('--model <model>', "model (default: the service's; see GET /v1/openai/models)")
    .option('--citations <style>', 'inline citations: numbered, markdown_link or none', 'numbered')
    .option('--thread <id>', 'continue a thread (its id is printed after an answer)')
    .option('--url <url>', 'API base URL (default: $NEWSFLOW_API_URL or http://127.0.0.1:8080)')
    .option('--key <key>', 'API key (default: $NEWSFLOW_API_KEY)')
    .action(
      async (question: string, o: { stream?: boolean; filters?: string; model?: string; citations: string; thread?: string; url?: string; key?: string }) => {
        if (!['numbered', 'markdown_link', 'none'].includes(o.citations)) throw new CliError('--citations must be numbered, markdown_link or none');
        const api = (await import('../config/index.js')).useProject().api;
        if (!(o.key ?? api.key))
          throw new CliError('an API key is needed: --key or NEWSFLOW_API_KEY (create one with: newsflow keys create --scopes chat ...)');
        try {
          const r = await (await work()).ask({
            question,
            stream: o.stream,
            filters: o.filters ? json(o.filters) : null,
            model: o.model,
            citations: o.citations as 'numbered',
            threadId: o.thread,
            baseUrl: o.url ?? api.url,
            apiKey: o.key ?? api.key,
          });
          if (r.threadId) process.stderr.write(`(model ${r.model}; continue with --thread ${r.threadId})\n`);
        } catch (e) {
          if (e instanceof (await work()).AskError) throw new CliError((e as Error).message);
          throw e;
        }
      },
    );

  program
    .command('research <question>')
    .description(
      'research a question with the DeepNews agent, round by round, as a durable workflow (deepResearch); prints each round, then lands the report and its sources in research_runs / research_sources',
    )
    .option('--depth <n>', 'research rounds (1-190)', intArg('--depth'), 3)
    .option('--sources <list>', 'DeepNews sources, comma-separated (e.g. asknews,google)', list)
    .option('--model <model>', "DeepNews model (default: the API's)")
    .option('--filters <json>', "search parameters for the agent's news searches (filter_params), as a JSON object")
    .option(...dataDirOpt)
    .option(...verboseOpt)
    .action(async (question: string, o: { depth: number; sources?: string[]; model?: string; filters?: string; dataDir?: string; verbose?: boolean }) => {
      const { ResearchInputError, runResearch } = await import('../run/deep-research.js');
      try {
        await runResearch(question, {
          depth: o.depth,
          sources: o.sources,
          model: o.model,
          filters: o.filters ? json(o.filters) : undefined,
          dataDir: o.dataDir,
          verbose: o.verbose,
        });
      } catch (e) {
        if (e instanceof ResearchInputError) throw new CliError(e.message);
        throw e;
      }
    });
}
