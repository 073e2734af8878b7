/**
 * `npm run bench:report`: writes docs/benchmarks.md from bench/results.json, one table per bench
 * with its method in a paragraph. `--check` writes nothing and exits 1 when the file differs from
 * what the results give (the page is stale).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readResults, type BenchEntry } from './results.js';

export const REPORT_FILE = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

type Figures = Record<string, unknown>;

/** The value at a dotted path of the figures, or undefined. */
const at = (f: Figures, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Figures)[k] : undefined), f);
/** A figure as a table cell: numbers with thousands separators, a unit when given, an en dash when it was not measured. */
function cell(f: Figures, path: string, unit = ''): string {
  const v = at(f, path);
  if (typeof v === 'number') return `${Number.isFinite(v) ? v.toLocaleString('en-US', { maximumFractionDigits: 3 }) : String(v)}${unit}`;
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return '–';
}
const pair = (f: Figures, path: string, unit = ' ms') => {
  const a = cell(f, `${path}.p50`);
  const b = cell(f, `${path}.p95`);
  return a === '–' && b === '–' ? '–' : `${a} / ${b}${unit}`;
};

interface Section {
  /** the key in results.json; the walk's keys are `walk-x<factor>` */
  id: string;
  title: string;
  file: string;
  method: string;
  head: string[];
  rows: (f: Figures, key: string) => string[][];
}

const SECTIONS: Section[] = [
  {
    id: 'search',
    title: 'Search latency',
    file: 'bench/search.ts',
    method:
      'The search engine called directly (no HTTP), query embedding included, `n_articles` 10, historical: about 105 queries (the judged relevance queries and the first words of random headlines), the first five of each method not counted. Once on the real corpus (about 12,000 articles) and once on 100,000 articles made of it (titles perturbed, embeddings jittered), where nl switches to the IVF index; its recall@10 against an exact scan is measured in the same run.',
    head: ['corpus', 'kw p50 / p95', 'nl p50 / p95', 'both p50 / p95', 'goal'],
    rows: (f) => [
      [`real, ${cell(f, 'corpus_docs')} articles`, pair(f, 'corpus.kw'), pair(f, 'corpus.nl'), pair(f, 'corpus.both'), ''],
      [
        `${cell(f, 'scaled_docs')} articles (IVF recall@10 ${cell(f, 'ivf_recall_at_10')})`,
        pair(f, 'scaled.kw'),
        pair(f, 'scaled.nl'),
        pair(f, 'scaled.both'),
        'nl p50 < 20 ms',
      ],
    ],
  },
  {
    id: 'http',
    title: 'Search over HTTP',
    file: 'bench/http.ts',
    method:
      'The real server in a process of its own (`bench/serve.ts`: a copy of the seeded corpus store, loopback HTTP, limits out of the way) under autocannon with 10 connections, 10 s per method (`NEWSFLOW_BENCH_SECONDS`). Queries are the first five words of 500 corpus headlines in turn, so nl embeds each query once and then finds it in the query cache.',
    head: ['method', 'req/s', 'p50', 'p99', 'goal'],
    rows: (f) => [
      ['kw', cell(f, 'kw.rps'), cell(f, 'kw.p50', ' ms'), cell(f, 'kw.p99', ' ms'), '>= 500 req/s, p99 < 50 ms'],
      ['nl', cell(f, 'nl.rps'), cell(f, 'nl.p50', ' ms'), cell(f, 'nl.p99', ' ms'), ''],
    ],
  },
  {
    id: 'ann',
    title: 'Nearest neighbours: two candidates beside today’s index',
    file: 'bench/ann.ts',
    method:
      'nl search’s top 10 over n MiniLM vectors (the seeded corpus’s, replicated with a ±0.02 jitter a dimension and renormalised) for 200 queries embedded by the same model, one at a time: the exact scan (the truth), today’s IVF index (`service/search/vectors.ts`), usearch (HNSW, f32, connectivity 16, saved and loaded back) and DuckDB’s vss extension (HNSW in a DuckDB file). Build seconds, size on disk, p50/p99 (the first 10 queries left out) and recall@10 against the exact scan.',
    head: ['n', 'index', 'build', 'on disk', 'p50 / p99', 'recall@10', 'goal'],
    rows: (f) =>
      Object.keys(f)
        .filter((k) => /^\d+$/.test(k))
        .flatMap((n) =>
          [
            ['exact scan', 'exact'],
            ['IVF (today)', 'ivf_today'],
            ['usearch HNSW', 'usearch_hnsw'],
            ['DuckDB vss HNSW', 'duckdb_vss_hnsw'],
          ].map(([label, k]) => [
            Number(n).toLocaleString('en-US'),
            label!,
            cell(f, `${n}.${k}.build_s`, ' s'),
            cell(f, `${n}.${k}.disk_mb`, ' MB'),
            `${cell(f, `${n}.${k}.p50_ms`)} / ${cell(f, `${n}.${k}.p99_ms`, ' ms')}`,
            cell(f, `${n}.${k}.recall_at_10`),
            k === 'exact' ? '' : '>= 0.95',
          ]),
        ),
  },
  {
    id: 'noisy-neighbour',
    title: 'A noisy neighbour',
    file: 'bench/noisy-neighbour.ts',
    method:
      'Another tenant’s kw search, one request after another over loopback HTTP to the service in a process of its own (`bench/serve.ts`), first idle, then while each of issue #32’s repros runs: (1) a text/html page of 8 bytes of 0xFF then 120,000 `<` posted to index_urls, three jobs in a row (charset detection and reading in a reader thread); (2) `POST /v1/news/graph` with one uploaded document of the 100,000-character cap and no sentence break, three in a row (a graph thread); (3) a JSON Feed whose content_text is 100,000 `<`, polled in the bench’s process as the worker’s poller does, fifty times (its figure is that process’s loop as well as the service’s).',
    head: ['while', 'searches', 'p50', 'p99', 'longest', 'goal'],
    rows: (f) =>
      [
        ['idle', 'idle'],
        ['finding 1: hostile page to index_urls', 'finding1'],
        ['finding 2: 100,000-character graph upload', 'finding2'],
        ['finding 3: hostile feed polled', 'finding3'],
      ].map(([label, k]) => [
        label!,
        cell(f, `${k}.searches`),
        cell(f, `${k}.p50`, ' ms'),
        cell(f, `${k}.p99`, ' ms'),
        cell(f, `${k}.max`, ' ms'),
        k === 'idle' ? '' : 'p99 < 100 ms',
      ]),
  },
  {
    id: 'mix',
    title: 'Mixed load',
    file: 'bench/mix.ts',
    method:
      'The same server under 20 connections mixing kw search, nl search and article lookups (a third each), queries drawn by Zipf’s law over 500 headlines (a few often, most rarely, as in search logs), the same sequence for each set-up: query embedding in the service’s thread with and without the query cache (with it is the default), and in the embedding thread (`NEWSFLOW_EMBED_THREAD=1`, concurrent queries batched) with and without it.',
    head: ['set-up', 'req/s', 'p95', 'goal'],
    rows: (f) =>
      [
        ['service’s thread, no query cache', 'in_thread_no_cache'],
        ['service’s thread, query cache (the default)', 'in_thread_cached_the_default'],
        ['embedding thread, batched, no query cache', 'embedding_thread_batched_no_cache'],
        ['embedding thread, batched, query cache', 'embedding_thread_batched_cached'],
      ].map(([label, k]) => [label!, cell(f, `${k}.rps`), cell(f, `${k}.p95`, ' ms'), '>= 200 req/s, p95 < 250 ms']),
  },
  {
    id: 'walk',
    title: 'Distribution walk against its rate limit',
    file: 'bench/walk.ts',
    method:
      'A real `distributionPull` on the Temporal dev server with an in-process worker and a warehouse, over 6 months of simulated hits at 20 articles a page, against the service at the interface’s distribution limits (0.2 requests/s, burst 5) with the rate scaled on both sides by a factor (`NEWSFLOW_BENCH_WALK_FACTOR`, default 50). The figure is the wall time over the rate-limit floor, (requests − burst) / rate, after a warm-up run that makes no request.',
    head: ['rate factor', 'requests', 'wall / floor', 'ratio', 'responses 429', 'goal'],
    rows: (f) => [
      [
        `x${cell(f, 'factor')} (${cell(f, 'limit.rate_per_s')} req/s)`,
        cell(f, 'distribution_requests'),
        `${cell(f, 'wall_s', ' s')} / ${cell(f, 'floor_s', ' s')}`,
        cell(f, 'ratio_wall_over_floor'),
        cell(f, 'responses_429'),
        '<= 1.05, no 429',
      ],
    ],
  },
  {
    id: 'landing',
    title: 'Landing into the warehouse',
    file: 'bench/landing.ts',
    method:
      'A 100-row page of articles (with entities, keywords and categories) landed at a ~2 MB lake and at a ≥ 2 GB lake, the two taking turns, median of 21 each after a warm-up; then 1M articles with about 4M entities through `Warehouse.land` in pages of 50,000, against one INSERT statement per row in the same run; then the two halves of a bulk page alone: the rows into DuckDB through the appender (no hash, no lake), and the lake’s own INSERT of rows already in DuckDB (no JS). The big lake is built once and cached under the cache dir.',
    head: ['figure', 'value', 'goal'],
    rows: (f) => [
      [
        `100-row page, ${cell(f, 'big_lake_gb', ' GB')} vs ${cell(f, 'small_lake_mb', ' MB')} lake`,
        `${cell(f, 'page_100_ms_big', ' ms')} / ${cell(f, 'page_100_ms_small', ' ms')} = ${cell(f, 'page_ratio_big_vs_small', 'x')}`,
        '<= 1.2x',
      ],
      [
        `bulk, ${cell(f, 'bulk_rows')} articles in pages of ${cell(f, 'bulk_page_rows')}`,
        `${cell(f, 'bulk_rows_per_s', ' rows/s')}, ${cell(f, 'bulk_vs_row_by_row', 'x')} row by row`,
        '>= 150,000 rows/s, >= 20x',
      ],
      [
        'bulk page halves: appender into DuckDB / the lake’s INSERT',
        `${cell(f, 'bulk_stage_only_rows_per_s')} / ${cell(f, 'bulk_lake_insert_only_rows_per_s', ' rows/s')}`,
        '',
      ],
      ['the lake’s INSERT of the same staged pages / landing, in the same run', cell(f, 'bulk_insert_vs_landing', 'x'), '<= 1.5x'],
      [
        'CPU a bulk page: landing / INSERT / staging / row hash',
        ['landing', 'insert', 'stage', 'hash']
          .map((k) => (f.bulk_cpu_ms_per_page as Record<string, number> | undefined)?.[k] ?? '–')
          .join(' / ')
          .concat(' ms'),
        '',
      ],
    ],
  },
  {
    id: 'coldstart',
    title: 'Cold start',
    file: 'bench/coldstart.ts',
    method:
      'Seconds from `newsflow start` on an empty data dir to its first landed load, first with an empty enriched-corpus cache (`NEWSFLOW_CACHE_DIR` in a temp dir), then on a second empty data dir with the cache the first run left.',
    head: ['start', 'seconds to the first load', 'goal'],
    rows: (f) => [
      ['empty cache', cell(f, 'fresh_s', ' s'), '< 60 s'],
      ['with the cache', cell(f, 'cached_s', ' s'), ''],
    ],
  },
  {
    id: 'cli-start',
    title: 'CLI start-up',
    file: 'bench/cli-start.ts',
    method:
      'Wall time of `newsflow --help` and of `newsflow sql "select 1"` on a warehouse made first, from the TypeScript sources through tsx (a checkout) and from the built files (dist/, as the installed package runs them), taking turns, after one warm-up run each.',
    head: ['command', 'tsx p50 / p90', 'built p50 / p90', 'goal (built)'],
    rows: (f) => [
      [
        '--help',
        `${cell(f, 'help_tsx.p50_ms')} / ${cell(f, 'help_tsx.p90_ms', ' ms')}`,
        `${cell(f, 'help_built.p50_ms')} / ${cell(f, 'help_built.p90_ms', ' ms')}`,
        '< 300 ms',
      ],
      [
        'sql "select 1"',
        `${cell(f, 'sql_tsx.p50_ms')} / ${cell(f, 'sql_tsx.p90_ms', ' ms')}`,
        `${cell(f, 'sql_built.p50_ms')} / ${cell(f, 'sql_built.p90_ms', ' ms')}`,
        '< 300 ms',
      ],
    ],
  },
  {
    id: 'chat',
    title: 'Grounded chat',
    file: 'bench/chat.ts',
    method:
      'The 30 questions of `test/fixtures/chat/questions.json` over HTTP on loopback, streamed (SSE), 10 retrieved articles each, answered by the extractive writer: time to the first content chunk and to `[DONE]`.',
    head: ['figure', 'p50 / p95', 'goal'],
    rows: (f) => [
      ['first token', pair(f, 'first_token'), '< 150 ms'],
      ['whole answer', pair(f, 'total'), '< 400 ms'],
    ],
  },
  {
    id: 'deepnews',
    title: 'DeepNews',
    file: 'bench/deepnews.ts',
    method:
      'The 15 research questions of `test/fixtures/deepnews/questions.json` over HTTP on loopback, offline (deterministic planner, extractive writer), `search_depth` 2, source asknews, not streamed: the time per report.',
    head: ['figure', 'value', 'goal'],
    rows: (f) => [
      ['report, p50 / p95', pair(f, 'total'), '< 1,500 ms'],
      ['tool calls per report', cell(f, 'tool_calls_mean'), ''],
    ],
  },
  {
    id: 'graph',
    title: 'Knowledge graph',
    file: 'bench/graph.ts',
    method:
      'Graphs of 50 articles for a list of queries on the real corpus, one after another: the builder alone (mentions, disambiguation, verb-labelled edges), and the whole `GraphService.build` (search, full texts, build, store).',
    head: ['figure', 'p50 / p95', 'goal'],
    rows: (f) => [
      ['builder alone', `${cell(f, 'builder_p50_ms')} / ${cell(f, 'builder_p95_ms', ' ms')}`, ''],
      ['whole build', `${cell(f, 'service_build_p50_ms')} / ${cell(f, 'service_build_p95_ms', ' ms')}`, 'p50 < 300 ms'],
    ],
  },
  {
    id: 'autofilter',
    title: 'Autofilter',
    file: 'bench/autofilter.ts',
    method:
      'The 40 descriptions of `test/fixtures/autofilter/descriptions.json`, each read 25 times by the autofilter engine after a first call that loads the gazetteer, the entity model and chrono-node.',
    head: ['figure', 'value', 'goal'],
    rows: (f) => [
      ['p50 / p95', `${cell(f, 'p50_ms')} / ${cell(f, 'p95_ms', ' ms')}`, 'p50 < 20 ms'],
      ['first call of a process', cell(f, 'first_call_ms', ' ms'), ''],
    ],
  },
  {
    id: 'forum',
    title: 'Forum search',
    file: 'bench/forum.ts',
    method:
      'Forum search at the store level (what both routes and the DeepNews and forecast capability call) over the 135 shared threads, `n_threads` 5, every sort; queries are the first three words of each title. nl is timed with the query embedded for the first time (cold) and found in the query cache (cached).',
    head: ['method', 'p50 / p95', 'goal'],
    rows: (f) => [
      ['kw', pair(f, 'kw'), 'p50 < 10 ms'],
      ['nl, cold', pair(f, 'nl_cold'), 'p50 < 10 ms'],
      ['nl, cached', pair(f, 'nl_cached'), 'p50 < 10 ms'],
    ],
  },
  {
    id: 'wiki',
    title: 'Encyclopedia search',
    file: 'bench/wiki.ts',
    method:
      'Wiki search over the four shared Wikipedia pages embedded with the service’s model, one question per section heading, `n_documents` 5, `neighbor_chunks` 1: with the query embedding, without it (the vector given), and the embedding alone.',
    head: ['figure', 'p50 / p95', 'goal'],
    rows: (f) => [
      ['nl', pair(f, 'nl'), 'p50 < 20 ms'],
      ['hybrid', pair(f, 'hybrid'), 'p50 < 20 ms'],
      ['nl / hybrid, vector given (p50)', `${cell(f, 'nl_engine_only.p50')} / ${cell(f, 'hybrid_engine_only.p50', ' ms')}`, ''],
      ['query embedding alone', pair(f, 'query_embedding_only'), ''],
    ],
  },
  {
    id: 'extract',
    title: 'Article extraction',
    file: 'bench/extract.ts',
    method:
      'Each candidate extractor and the chosen pipeline (`extractArticle`) on the 35 shared Readability test pages and, apart, on gathered pages (real pages that extraction libraries ship with their expected text or with snippets the text must and must not hold, fetched by `bench/extract-pages.ts` into the OS temp dir), scored with the article-extraction-benchmark’s shingle F1 (texts) and trafilatura’s snippet counts; the held-out half of the gathered pages is never tuned on. Speed in pages per CPU second on one thread, on the shared pages (the least of 3 passes). The shared pages’ reference is Readability’s own output.',
    head: ['candidate', 'F1, shared pages', 'F1, held-out texts', 'F1, held-out snippets', 'pages per CPU second (shared)'],
    rows: (f) => {
      const names = [...new Set(Object.keys(f).flatMap((k) => /^shared_(.+)_f1$/.exec(k)?.[1] ?? []))];
      return names.map((n) => [
        n,
        cell(f, `shared_${n}_f1`),
        cell(f, `heldout_${n}_f1`),
        cell(f, `heldout_snippets_${n}_f1`),
        cell(f, `${n}_shared_pages_per_s`),
      ]);
    },
  },
  {
    id: 'day100',
    title: 'Day 100 of the warehouse',
    file: 'bench/day100.ts',
    method:
      'The starter file’s pipelines over compressed days (`NEWSFLOW_BENCH_RUNS_PER_DAY` runs of each of the two news pipelines a day: 40 real headlines-2022 articles a page, a quarter updates of the previous run’s; stories, index counts, alert logs and a feed’s poll and items once a day), each run one landing per table and one `_loads` row through `Warehouse.land`, into a lake maintained daily (`Warehouse.maintain`, snapshots of the last 7 bench days kept) and one never maintained, beside the maintained lake’s rows bulk-loaded into a fresh lake, one statement per table (the reference layout). Files: the live data files of the tables that hold rows (most in one table in brackets). Queries: best of 5 on a fresh read-only attach after a warm-up. Goals at the last day, maintained: queries within 1.25x of the reference, landing within 1.25x of day 1, at most 4 files per table, the maintenance run under a minute',
    head: [
      'day',
      'lake',
      'article rows in live files (deleted rows counted)',
      'files (most in a table)',
      'snapshots',
      'catalog',
      'land a page',
      'maintenance',
      'count',
      'group by domain',
      'entity join',
    ],
    rows: (f) =>
      ((f.rows as Figures[] | undefined) ?? []).map((r) => [
        cell(r, 'day'),
        cell(r, 'lake'),
        cell(r, 'rows'),
        `${cell(r, 'files')} (${cell(r, 'max_files_table')})`,
        cell(r, 'snapshots'),
        cell(r, 'catalog_mb', ' MB'),
        cell(r, 'land_page_ms', ' ms'),
        cell(r, 'maintain_ms', ' ms'),
        cell(r, 'count_ms', ' ms'),
        cell(r, 'group_by_ms', ' ms'),
        cell(r, 'join_ms', ' ms'),
      ]),
  },
  {
    id: 'scale',
    title: 'The service at scale',
    method:
      'A store grown from the real corpus (every article replicated with new ids and matching rows in every per-article table, copies moved back in time by whole corpus spans, DuckDB INSERT ... SELECT), started as the service in a process of its own: seconds until it answers HTTP and until its news index is ready, RSS after start and the peak, the first nl search after ready, then 200 kw and 200 nl searches one after another over loopback HTTP (historical, 10 articles), then 100 corpus articles with new ids ingested through NewsService.addArticles in batches of 50 (enrich, embed, store, index, stories: searchable when it returns), then SIGTERM. `scale-before` is the code before issue #35; a point with no figures did not answer within the timeout (300 s)',
    file: 'bench/scale.ts',
    head: ['run', 'articles', 'data dir', 'answers / ready', 'RSS after start / peak', 'first nl', 'kw p50 / p99', 'nl p50 / p99', 'ingest', 'SIGTERM'],
    rows: (f, key) =>
      ((f.points as Figures[] | undefined) ?? []).map((p) => [
        key,
        cell(p, 'articles'),
        cell(p, 'data_dir_gb', ' GB'),
        p.answer_s == null && typeof p.note === 'string' ? p.note : `${cell(p, 'answer_s', ' s')} / ${cell(p, 'ready_s', ' s')}`,
        `${cell(p, 'rss_after_start_gb', ' GB')} / ${cell(p, 'peak_rss_gb', ' GB')}`,
        cell(p, 'first_nl_ms', ' ms'),
        `${cell(p, 'kw_ms.p50')} / ${cell(p, 'kw_ms.p99', ' ms')}`,
        `${cell(p, 'nl_ms.p50')} / ${cell(p, 'nl_ms.p99', ' ms')}`,
        cell(p, 'ingest_per_s', '/s'),
        cell(p, 'sigterm_s', ' s'),
      ]),
  },
  {
    id: 'auth',
    title: 'Key resolution',
    file: 'bench/auth.ts',
    method: 'Resolving a bearer key on each request: a hit of the principal cache against a lookup in the store, 2,000 times each over 50 keys.',
    head: ['figure', 'value'],
    rows: (f) => [
      ['cached', cell(f, 'cached_us', ' µs')],
      ['store lookup', cell(f, 'store_lookup_us', ' µs')],
    ],
  },
];

function when(e: BenchEntry): string {
  const load = e.machine.load_avg_1m;
  const loads = [load.before !== undefined ? `${load.before} before` : '', load.after !== undefined ? `${load.after} after` : ''].filter(Boolean).join(', ');
  const date = e.date.length > 10 ? `${e.date.slice(0, 10)} ${e.date.slice(11, 16)} UTC` : e.date;
  return `${date}, ${e.machine.cpus} cores${loads ? `, 1-minute load average ${loads}` : ', load average not recorded'}`;
}

const escape = (s: string) => s.replaceAll('|', '\\|');

export function renderReport(results = readResults()): string {
  const out = [
    '# Benchmarks',
    '',
    '<!-- Generated by `npm run bench:report` from bench/results.json; edit those, not this file. -->',
    '',
    'Speed goals are benchmarks, printed and recorded, never asserted by a test. `npm run bench` runs every bench in `bench/`, prints one JSON line each and',
    'records it in `bench/results.json` with its date and the machine’s load (`npm run bench -- landing walk` runs some); `npm run bench:report` writes this page',
    'from that file. Each bench also runs alone (`node --import tsx bench/walk.ts`), printing without recording. The machine is a 2-core one shared with',
    'other work, so the load average stands beside each figure. Figures marked *seeded* were recorded before the results file existed.',
    '',
  ];
  for (const s of SECTIONS) {
    const entries = Object.entries(results.benches)
      .filter(([k]) => k === s.id || k.startsWith(`${s.id}-`))
      .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
    out.push(`## ${s.title}`, '', `${s.method} (\`${s.file}\`)`, '');
    if (!entries.length) {
      out.push(`Not measured yet: \`npm run bench -- ${s.id}\`.`, '');
      continue;
    }
    out.push(`| ${s.head.join(' | ')} |`, `| ${s.head.map(() => '---').join(' | ')} |`);
    for (const [key, e] of entries) for (const row of s.rows(e.figures, key)) out.push(`| ${row.map(escape).join(' | ')} |`);
    out.push('');
    for (const [key, e] of entries) {
      const label = entries.length > 1 ? `${key}: measured` : 'Measured';
      out.push(`${label} ${when(e)}.${e.seeded ? ` *Seeded* ${e.seeded}.` : ''}`, '');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = renderReport();
  if (process.argv.includes('--check')) {
    const now = fs.existsSync(REPORT_FILE) ? fs.readFileSync(REPORT_FILE, 'utf8') : '';
    if (now !== text) {
      console.error('error: docs/benchmarks.md is stale: run npm run bench:report');
      process.exit(1);
    }
  } else {
    fs.writeFileSync(REPORT_FILE, text);
    console.log(`wrote ${REPORT_FILE}`);
  }
}
