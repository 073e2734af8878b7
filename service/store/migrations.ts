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
