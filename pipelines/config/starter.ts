/**
 * The starter project file `newsflow init` writes: every section with a comment, two named news
 * pipelines and the other kinds a team usually runs. Without a project file, newsflow runs this
 * one (it is the default configuration).
 */
export const STARTER_FILE = `# newsflow project file. Reference: docs/configuration.md
# Check it with: npx newsflow config check
# yaml-language-server: $schema=./node_modules/newsflow/newsflow.schema.json

# The API the pipelines pull from. Without it, \`newsflow start\` runs the embedded service on
# this machine (a replay of the demo corpus) and makes its own key.
# api:
#   url: https://api.asknews.app
#   key: \${NEWSFLOW_API_KEY}      # secrets never sit in this file: \${ENV_VAR} only

# Where the warehouse (a DuckLake: a catalog and Parquet files) and the logs live.
warehouse:
  path: ./data
  # catalog: postgres://user@db/newsflow   # default: <path>/lake.sqlite
  # data: s3://bucket/newsflow/            # default: <path>/lake/

# Temporal: dev (the CLI dev server, started for you), postgres, or host:port of your server.
temporal:
  server: dev
  namespace: default

# Requests per second, burst and concurrency per API scope group (default: the API's plan limits).
# limits:
#   news: { rate: 10, burst: 20, concurrency: 10 }

# Named pipelines. Each has a kind, its parameters and a schedule (every or cron, plus catchup).
pipelines:
  - name: ukraine
    kind: news
    query: Ukraine
    window: 1h               # each run pulls the hour before its scheduled time
    schedule: { every: 15m, catchup: 1h }

  - name: covid
    kind: news
    query: covid
    filters:
      languages: [en]
    schedule: { every: 30m, catchup: 2h }

  - name: top-stories
    kind: stories
    trackers:
      - { name: top, strategy: topstories, stories: 20 }

  - name: counts
    kind: index-counts
    samplings: [1h, 1d]

  - name: alerts
    kind: alerts
    sync: true

  - name: maintenance
    kind: maintenance        # keeps the lake as fast as on day 1 (docs/warehouse.md, Maintenance)
    retention: 7d            # sql --at reaches the loads of the last 7 days
    schedule: { cron: "30 3 * * *", catchup: 1d }

  # - name: my-domains
  #   kind: distribution
  #   domains: [example.com]
  #   schedule: { cron: "0 2 * * *", catchup: 1d }
  # - name: ukraine-briefing
  #   kind: research
  #   question: What changed in the war in Ukraine this week?
  #   depth: 3
  #   schedule: { cron: "0 6 * * 1" }
  # - name: chips-graph
  #   kind: graph
  #   query: semiconductor export controls

# Feeds and sitemaps the embedded service indexes as they publish.
# sources:
#   - { name: example-news, url: https://example.com/rss.xml }

# Your own workflows and activities, registered with newsflow's worker (see examples/custom-pipeline).
# workflows: ./pipelines.ts
`;
