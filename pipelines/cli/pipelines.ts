/** The pipelines: `worker` (runs them all) and `run` (one now, waiting for it). */
import type { Command } from 'commander';
import type { RunRequest } from '../run/run-once.js';
import type { RunOptions } from '../config/kinds/index.js';
import { CliError, dataDirOpt, intArg, list, metricsPortOpt, verboseOpt } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const registry = () => import('../config/kinds/index.js');

export function register(program: Command): void {
  program
    .command('worker')
    .description('run the Temporal worker (all workflows and activities); checks the API and key first; stops cleanly on SIGINT/SIGTERM')
    .option(...dataDirOpt)
    .option(...verboseOpt)
    .option(...metricsPortOpt)
    .option('--metrics-host <address>', 'the address the metrics port listens on (default: metrics.host of the project file, else 127.0.0.1)')
    .action(async (o: { dataDir?: string; verbose?: boolean; metricsPort?: number; metricsHost?: string }) => {
      const { runWorker } = await import('../run/run-once.js');
      await runWorker(o.dataDir, { verbose: o.verbose, metricsPort: o.metricsPort, metricsHost: o.metricsHost });
    });

  program
    .command('run <pipeline>')
    .description(
      "run a pipeline once now and wait for it: one of the project file's named pipelines (its declared run, now), or a kind with options (news, distribution, index-counts, stories, graph; their former names news-ingest and story-tracker are read for this release, with a warning)",
    )
    .option('--from <time>', 'window start (ISO date or date-time, UTC); all but stories (graph: optional, on pub_date)')
    .option('--to <time>', 'window end (ISO date or date-time, UTC); all but stories (graph: optional)')
    .option('--trackers <json>', 'stories: JSON array of trackers, e.g. \'[{"name":"top","strategy":"topstories","stories":20}]\'')
    .option('--query <q>', 'news: search query (default: every article in the window); graph: the query whose articles make the graph', '')
    .option('--out <file>', "graph: write the run's graph (nodes, edges, URLs) as JSON to this file")
    .option('--visualize', 'graph: ask for a visualize_url (a page drawing the graph)')
    .option('--geo', 'graph: places get coordinates (geo_disambiguation)')
    .option('--min-cluster-probability <p>', 'graph: merges below this probability are not applied (0..1, default 0.9)')
    .option('--domains <list>', 'distribution: comma-separated domains of your organization', list)
    .option('--sampling <s>', 'index-counts: bucket size 5m, 1h, 12h, 1d, 1w or 1m; with --domains one series per domain, else one over every domain', '1d')
    .option(
      '--filters <json>',
      'index-counts: index_counts filters as JSON, e.g. \'{"languages":["en"],"time_filter":"crawl_date"}\'; graph: search filter_params as JSON',
    )
    .option('--page-size <n>', 'rows per page (news 1-101, distribution 1-100)', intArg('--page-size'), 100)
    .option('--schema <contract>', 'news: what a field the API adds or drops does: evolve (default), freeze (the run fails naming it) or discard')
    .option(...dataDirOpt)
    .option(...verboseOpt)
    .action(async (pipeline: string, o: RunOptions) => {
      const request = (await runRequest(pipeline, o)) ?? (await namedRequest(pipeline));
      const { runOnce } = await import('../run/run-once.js');
      await runOnce(o.dataDir, request, { verbose: o.verbose });
    });
}

/** The run of a named pipeline of the project file: its (first) schedule's workflow and argument, now. */
async function namedRequest(name: string): Promise<RunRequest<never>> {
  const { useProject } = await import('../config/index.js');
  const { pipelineSchedules } = await import('../schedules/declare.js');
  const { scheduledNeeds } = await import('../run/preflight.js');
  const p = useProject().pipelines.find((x) => x.name === name);
  if (!p) {
    const names = useProject().pipelines.map((x) => x.name);
    throw new CliError(
      `no pipeline "${name}" in the project file${names.length ? ` (its pipelines: ${names.join(', ')})` : ''} and no kind of that name; kinds: ${(await cliKinds()).join(', ')}`,
    );
  }
  const [d] = pipelineSchedules(p);
  if (!d) throw new CliError(`pipeline ${name} runs nothing (an alerts pipeline with sync: false)`);
  return {
    workflowType: d.workflowType,
    taskQueue: d.taskQueue,
    input: (d.args[0] as Record<string, unknown> | undefined) ?? {},
    show: () => [0, 1, name],
    need: scheduledNeeds([d])[0] ?? { kind: p.kind },
  };
}

/** The kinds `newsflow run <kind>` runs from options. */
const cliKinds = async () => (await registry()).kinds().flatMap((k) => (k.cli ? [k.name] : []));

/**
 * The workflow `newsflow run <kind>` starts, from its options (the kind's `cli.run` in the
 * registry); undefined when `name` is no such kind. A former name works, with a warning.
 */
async function runRequest(name: string, o: RunOptions): Promise<RunRequest<never> | undefined> {
  const { findKind, formerNameWarning } = await registry();
  const found = findKind(name);
  if (!found?.kind.cli) return undefined;
  const { kind, former } = found;
  if (former) console.error(formerNameWarning(name, kind.name));
  const run = await kind.cli!.run(o);
  return {
    workflowType: kind.workflowType,
    taskQueue: kind.taskQueue,
    input: run.input,
    show: run.show,
    after: run.after,
    need: kind.domains ? { kind: kind.name, domains: kind.domains(run.input) } : { kind: kind.name },
  };
}
