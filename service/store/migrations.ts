/** Schema of the service store, in order. A migration never changes once released. */
export interface Migration {
  version: number;
  name: string;
  sql: string[];
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'organizations, api keys, oauth tokens',
    sql: [
      `CREATE TABLE orgs (
         id VARCHAR PRIMARY KEY,
         name VARCHAR NOT NULL UNIQUE,
         domains VARCHAR[] NOT NULL,
         publisher BOOLEAN NOT NULL,
         plan VARCHAR NOT NULL,
         user_id VARCHAR NOT NULL,
         created_at TIMESTAMP NOT NULL DEFAULT now())`,
      // key_hash = sha256 of the key; the plaintext is shown once and never stored
      `CREATE TABLE api_keys (
         id VARCHAR PRIMARY KEY,
         name VARCHAR NOT NULL,
         key_hash VARCHAR NOT NULL UNIQUE,
         key_prefix VARCHAR NOT NULL,
         org_id VARCHAR,
         user_id VARCHAR NOT NULL,
         scopes VARCHAR[] NOT NULL,
         plan VARCHAR NOT NULL,
         legacy BOOLEAN NOT NULL,
         created_at TIMESTAMP NOT NULL DEFAULT now(),
         revoked_at TIMESTAMP)`,
      `CREATE TABLE oauth_tokens (
         token_hash VARCHAR PRIMARY KEY,
         key_id VARCHAR NOT NULL,
         scopes VARCHAR[] NOT NULL,
         expires_at TIMESTAMP NOT NULL)`,
    ],
  },
];

MIGRATIONS.push({
  version: 2,
  name: 'news core: articles, entities, postings, embeddings, publishers, hit events',
  sql: [
    // Times are UTC TIMESTAMPs. crawl_date NULL = loaded but not yet indexed (replay).
    `CREATE TABLE articles (
       article_id UUID PRIMARY KEY,
       source VARCHAR NOT NULL,
       source_key VARCHAR NOT NULL,
       article_url VARCHAR NOT NULL,
       domain_url VARCHAR NOT NULL,
       title VARCHAR NOT NULL,
       eng_title VARCHAR NOT NULL,
       summary VARCHAR NOT NULL,
       key_points VARCHAR[] NOT NULL,
       keywords VARCHAR[] NOT NULL,
       full_text VARCHAR,
       language VARCHAR NOT NULL,
       pub_date TIMESTAMP NOT NULL,
       crawl_date TIMESTAMP,
       classification VARCHAR[] NOT NULL,
       sentiment INTEGER NOT NULL,
       provocative VARCHAR NOT NULL,
       reporting_voice VARCHAR NOT NULL,
       content_type VARCHAR NOT NULL,
       bias VARCHAR NOT NULL,
       country VARCHAR NOT NULL,
       continent VARCHAR,
       page_rank INTEGER NOT NULL,
       source_id VARCHAR NOT NULL,
       authors JSON,
       is_podcast BOOLEAN NOT NULL,
       is_premium BOOLEAN NOT NULL,
       centroid_distance DOUBLE NOT NULL,
       cluster_probability DOUBLE NOT NULL,
       entities JSON NOT NULL,
       geo_coordinates JSON,
       n_terms INTEGER NOT NULL,
       url_derived BOOLEAN NOT NULL,
       date_derived BOOLEAN NOT NULL,
       content_hash VARCHAR NOT NULL,
       enriched_at TIMESTAMP NOT NULL)`,
    `CREATE TABLE article_entities (article_id UUID NOT NULL, type VARCHAR NOT NULL, value VARCHAR NOT NULL)`,
    `CREATE TABLE postings (term VARCHAR NOT NULL, article_id UUID NOT NULL, tf INTEGER NOT NULL)`,
    `CREATE TABLE embeddings (article_id UUID PRIMARY KEY, model VARCHAR NOT NULL, dim INTEGER NOT NULL, vec BLOB NOT NULL)`,
    `CREATE TABLE publishers (
       domain VARCHAR PRIMARY KEY,
       country VARCHAR NOT NULL,
       country_source VARCHAR NOT NULL,
       continent VARCHAR,
       page_rank INTEGER NOT NULL,
       articles INTEGER NOT NULL,
       is_podcast BOOLEAN NOT NULL,
       is_premium BOOLEAN NOT NULL)`,
    // One row per event; `synthetic` marks simulated history (distribution demos).
    `CREATE TABLE hit_events (
       event_id UUID NOT NULL,
       ts TIMESTAMP NOT NULL,
       kind VARCHAR NOT NULL,
       key_id VARCHAR,
       org_id VARCHAR,
       domain VARCHAR NOT NULL,
       article_id UUID NOT NULL,
       query VARCHAR,
       synthetic BOOLEAN NOT NULL DEFAULT false)`,
  ],
});

MIGRATIONS.push({
  version: 3,
  name: 'alerts and alert logs',
  sql: [
    // One row per alert; deleted alerts stay (include_deleted) with deleted_at set.
    `CREATE TABLE alerts (
       id UUID PRIMARY KEY,
       user_id UUID NOT NULL,
       org_id VARCHAR,
       api_key_id VARCHAR,
       created_at TIMESTAMP NOT NULL,
       updated_at TIMESTAMP NOT NULL,
       deleted_at TIMESTAMP,
       expires_at TIMESTAMP,
       query VARCHAR,
       cron VARCHAR NOT NULL,
       model VARCHAR,
       share_link VARCHAR,
       sources JSON,
       report JSON,
       triggers JSON NOT NULL,
       always_trigger BOOLEAN NOT NULL,
       repeat BOOLEAN NOT NULL,
       active BOOLEAN NOT NULL,
       alert_type VARCHAR,
       title VARCHAR,
       -- articles indexed (crawl_date) up to this instant have been checked
       checked_through TIMESTAMP)`,
    `CREATE TABLE alert_logs (
       id UUID PRIMARY KEY,
       alert_id UUID NOT NULL,
       user_id UUID NOT NULL,
       created_at TIMESTAMP NOT NULL,
       alert BOOLEAN NOT NULL,
       reasoning VARCHAR NOT NULL,
       report VARCHAR,
       report_url VARCHAR,
       article_ids UUID[] NOT NULL,
       webhook JSON,
       is_test BOOLEAN NOT NULL DEFAULT false)`,
  ],
});

MIGRATIONS.push({
  version: 4,
  name: 'stories: stories, story updates, update articles',
  sql: [
    // A story is founded by its first article; its id derives from that article (stable reseeds).
    `CREATE TABLE stories (
       story_id UUID PRIMARY KEY,
       founding_article_id UUID NOT NULL,
       created_at TIMESTAMP NOT NULL)`,
    // One update per time window (window_index counts windows from the founding article).
    `CREATE TABLE story_updates (
       update_id UUID PRIMARY KEY,
       story_id UUID NOT NULL,
       window_index INTEGER NOT NULL,
       created_at TIMESTAMP NOT NULL)`,
    // An article belongs to one update of one story; seq = the order articles joined (centroids are rebuilt in it).
    `CREATE TABLE story_update_articles (
       article_id UUID PRIMARY KEY,
       story_id UUID NOT NULL,
       update_id UUID NOT NULL,
       seq BIGINT NOT NULL,
       cosine DOUBLE NOT NULL,
       score DOUBLE NOT NULL,
       clustered_at TIMESTAMP NOT NULL)`,
  ],
});

MIGRATIONS.push({
  version: 5,
  name: 'chat threads and messages; BYOK provider keys (encrypted)',
  sql: [
    // A thread belongs to the principal that started it (user_id); messages keep the turn order.
    `CREATE TABLE chat_threads (
       thread_id VARCHAR PRIMARY KEY,
       user_id VARCHAR NOT NULL,
       key_id VARCHAR,
       created_at TIMESTAMP NOT NULL,
       updated_at TIMESTAMP NOT NULL)`,
    `CREATE TABLE chat_messages (
       thread_id VARCHAR NOT NULL,
       seq INTEGER NOT NULL,
       role VARCHAR NOT NULL,
       content VARCHAR NOT NULL,
       created_at TIMESTAMP NOT NULL,
       PRIMARY KEY (thread_id, seq))`,
    // owner = organization id for organization keys, user id for personal keys. secret =
    // base64(iv | tag | AES-256-GCM ciphertext) under the master key; the plaintext is never stored.
    `CREATE TABLE byok_keys (
       owner VARCHAR NOT NULL,
       provider VARCHAR NOT NULL,
       secret VARCHAR NOT NULL,
       key_hint VARCHAR NOT NULL,
       updated_at TIMESTAMP NOT NULL,
       PRIMARY KEY (owner, provider))`,
  ],
});

MIGRATIONS.push({
  version: 6,
  name: 'URL indexing: jobs, their URLs, the web index; og:image of articles',
  sql: [
    `ALTER TABLE articles ADD COLUMN image_url VARCHAR`,
    // One row per index_urls request; owner = the organization of an organization key, else the user.
    `CREATE TABLE url_jobs (
       job_id UUID PRIMARY KEY,
       owner VARCHAR NOT NULL,
       key_id VARCHAR,
       status VARCHAR NOT NULL,
       start_time TIMESTAMP NOT NULL,
       end_time TIMESTAMP NOT NULL,
       created_at TIMESTAMP NOT NULL,
       updated_at TIMESTAMP NOT NULL,
       finished_at TIMESTAMP)`,
    // One row per URL of a job, in request order (seq). status: queued, running, indexed, skipped,
    // refused, failed; reason: a code (not_article, duplicate, forbidden_address, timeout, ...).
    `CREATE TABLE url_job_items (
       job_id UUID NOT NULL,
       seq INTEGER NOT NULL,
       url VARCHAR NOT NULL,
       skip_dedupe BOOLEAN NOT NULL,
       data JSON,
       metadata JSON,
       enrichments JSON,
       status VARCHAR NOT NULL,
       reason VARCHAR,
       detail VARCHAR,
       final_url VARCHAR,
       canonical_url VARCHAR,
       http_status INTEGER,
       title VARCHAR,
       article_id UUID,
       updated_at TIMESTAMP NOT NULL,
       PRIMARY KEY (job_id, seq))`,
    // Every page URL indexing fetched (articles and not), by canonical URL: the web search index.
    `CREATE TABLE web_pages (
       page_url VARCHAR PRIMARY KEY,
       final_url VARCHAR NOT NULL,
       domain VARCHAR NOT NULL,
       title VARCHAR NOT NULL,
       text VARCHAR NOT NULL,
       site_name VARCHAR,
       language VARCHAR,
       published TIMESTAMP,
       fetched_at TIMESTAMP NOT NULL,
       is_article BOOLEAN NOT NULL,
       article_id UUID,
       job_id UUID,
       metadata JSON,
       enrichments JSON)`,
  ],
});

MIGRATIONS.push({
  version: 7,
  name: 'graphs: built knowledge graphs behind their capability ids (visualize_url, triples_url)',
  sql: [
    // graph_id: a random UUID (122 random bits) that is the capability; owner: the key that built it.
    `CREATE TABLE graphs (
       graph_id UUID PRIMARY KEY,
       key_id VARCHAR,
       query VARCHAR NOT NULL,
       graph JSON NOT NULL,
       created_at TIMESTAMP NOT NULL,
       expires_at TIMESTAMP NOT NULL)`,
  ],
});

MIGRATIONS.push({
  version: 8,
  name: 'wiki: encyclopedia articles, their section chunks and chunk embeddings',
  sql: [
    // url is the article's key (https://<site>/wiki/<Title>); content_hash covers every stored field (an unchanged reload is skipped).
    `CREATE TABLE wiki_articles (
       url VARCHAR PRIMARY KEY,
       title VARCHAR NOT NULL,
       page_id BIGINT,
       revision_id BIGINT,
       wikibase_item VARCHAR,
       categories VARCHAR[] NOT NULL,
       ts TIMESTAMP NOT NULL,
       created_at TIMESTAMP,
       text_bytes INTEGER NOT NULL,
       links VARCHAR[] NOT NULL,
       source VARCHAR NOT NULL,
       content_hash VARCHAR NOT NULL)`,
    // seq = position in the article; section = heading path ("" for the lead).
    `CREATE TABLE wiki_chunks (
       point_id VARCHAR NOT NULL,
       url VARCHAR NOT NULL,
       seq INTEGER NOT NULL,
       section VARCHAR NOT NULL,
       level INTEGER NOT NULL,
       content VARCHAR NOT NULL)`,
    `CREATE TABLE wiki_embeddings (
       point_id VARCHAR NOT NULL,
       model VARCHAR NOT NULL,
       vec BLOB NOT NULL)`,
  ],
});

MIGRATIONS.push({
  version: 9,
  name: 'forum: threads, comments, thread embeddings',
  sql: [
    // thread_key: the source's key ('reddit:<id>' for Pushshift/Reddit data, 'rpc:<sub>/post_<n>' for
    // the shared dataset); thread_id derives from it. derived: fields the source did not carry.
    // raw_hash: of the source values; enriched_hash: of what the enrichment columns were computed from.
    // author_*_karma NULL: not in the source (derived from the store when read); comments_count
    // NULL: not in the source (the comments in the store are counted).
    `CREATE TABLE forum_threads (
       thread_id UUID PRIMARY KEY,
       thread_key VARCHAR NOT NULL,
       source VARCHAR NOT NULL,
       subreddit VARCHAR NOT NULL,
       title VARCHAR NOT NULL,
       body VARCHAR NOT NULL,
       author VARCHAR NOT NULL,
       author_link_karma INTEGER,
       author_comment_karma INTEGER,
       date TIMESTAMP NOT NULL,
       upvotes INTEGER NOT NULL,
       url VARCHAR NOT NULL,
       comments_count INTEGER,
       derived VARCHAR[] NOT NULL,
       raw_hash VARCHAR NOT NULL,
       loaded_at TIMESTAMP NOT NULL,
       summary VARCHAR,
       key_takeaways VARCHAR[],
       main_speculation VARCHAR,
       keywords VARCHAR[],
       entities JSON,
       sentiment DOUBLE,
       classification VARCHAR[],
       topic VARCHAR,
       language VARCHAR,
       enriched_hash VARCHAR)`,
    // A comment belongs to the thread of thread_key (it may arrive before its thread: it shows once the thread is loaded).
    `CREATE TABLE forum_comments (
       comment_key VARCHAR PRIMARY KEY,
       thread_key VARCHAR NOT NULL,
       seq BIGINT NOT NULL,
       author VARCHAR NOT NULL,
       body VARCHAR NOT NULL,
       date TIMESTAMP NOT NULL,
       upvotes INTEGER NOT NULL,
       derived VARCHAR[] NOT NULL,
       raw_hash VARCHAR NOT NULL)`,
    `CREATE TABLE forum_embeddings (thread_id UUID PRIMARY KEY, model VARCHAR NOT NULL, dim INTEGER NOT NULL, vec BLOB NOT NULL)`,
  ],
});

MIGRATIONS.push({
  version: 10,
  name: 'owners of indexed pages: articles.owner, web_pages keyed by (owner, page_url)',
  sql: [
    // owner NULL: the shared corpus; else `org:<id>` / `user:<id>`, the owner of the URL indexing job
    // that fetched the page, the only one who sees it (service/indexing/runner.ts). Pages indexed
    // before are their job's owner's.
    'ALTER TABLE articles ADD COLUMN owner VARCHAR',
    `UPDATE articles SET owner = j.owner FROM web_pages w JOIN url_jobs j ON j.job_id = w.job_id
     WHERE w.article_id = articles.article_id AND articles.source = 'web'`,
    // owner '' : a page of the shared web index (crawl, or index_urls with NEWSFLOW_INDEX_URLS_SHARED=1)
    `CREATE TABLE web_pages_owned (
       owner VARCHAR NOT NULL,
       page_url VARCHAR NOT NULL,
       final_url VARCHAR NOT NULL,
       domain VARCHAR NOT NULL,
       title VARCHAR NOT NULL,
       text VARCHAR NOT NULL,
       site_name VARCHAR,
       language VARCHAR,
       published TIMESTAMP,
       fetched_at TIMESTAMP NOT NULL,
       is_article BOOLEAN NOT NULL,
       article_id UUID,
       job_id UUID,
       metadata JSON,
       enrichments JSON,
       PRIMARY KEY (owner, page_url))`,
    `INSERT INTO web_pages_owned SELECT coalesce(j.owner, ''), w.page_url, w.final_url, w.domain, w.title, w.text, w.site_name, w.language,
       w.published, w.fetched_at, w.is_article, w.article_id, w.job_id, w.metadata, w.enrichments
     FROM web_pages w LEFT JOIN url_jobs j ON j.job_id = w.job_id`,
    'DROP TABLE web_pages',
    'ALTER TABLE web_pages_owned RENAME TO web_pages',
  ],
});

MIGRATIONS.push({
  version: 11,
  name: 'secrets rotations',
  sql: [
    // one row a `newsflow secrets rotate` (service/byok/rotate.ts), written in its transaction. Its
    // first row retires the v1 format (values sealed before values were bound to their rows): that
    // rotation re-sealed every v1 value as v2, so a v1 value met afterwards was written since, and
    // is refused (service/byok/store.ts). rotated_at is UTC.
    `CREATE TABLE secrets_rotations (
       rotated_at TIMESTAMP NOT NULL,
       from_key VARCHAR,
       to_key VARCHAR NOT NULL,
       resealed INTEGER NOT NULL,
       v1_resealed INTEGER NOT NULL)`,
  ],
});
