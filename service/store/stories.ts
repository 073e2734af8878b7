/** Stories, their updates and update articles in the service store (migration 4). */
import type { Db } from './db.js';
import { micros, stage } from './bulk.js';

export interface StoredMember {
  articleId: string;
  storyId: string;
  updateId: string;
  seq: number;
  cosine: number;
  score: number;
}

export interface StoredStory {
  storyId: string;
  foundingId: string;
}

export interface StoredUpdate {
  updateId: string;
  storyId: string;
  windowIndex: number;
}

export class StoryStore {
  constructor(readonly db: Db) {}

  /** Everything stored: stories in founding order, updates, members in the order they joined. */
  async load(): Promise<{ stories: StoredStory[]; updates: StoredUpdate[]; members: StoredMember[] }> {
    const [stories, updates, members] = await Promise.all([
      this.db.all<{ s: string; f: string }>(`SELECT s.story_id::VARCHAR AS s, s.founding_article_id::VARCHAR AS f FROM stories s
        JOIN story_update_articles m ON m.article_id = s.founding_article_id ORDER BY m.seq`),
      this.db.all<{ u: string; s: string; w: number }>('SELECT update_id::VARCHAR AS u, story_id::VARCHAR AS s, window_index AS w FROM story_updates'),
      this.db.all<{ a: string; s: string; u: string; seq: bigint; c: number; sc: number }>(
        'SELECT article_id::VARCHAR AS a, story_id::VARCHAR AS s, update_id::VARCHAR AS u, seq, cosine AS c, score AS sc FROM story_update_articles ORDER BY seq',
      ),
    ]);
    return {
      stories: stories.map((r) => ({ storyId: r.s, foundingId: r.f })),
      updates: updates.map((r) => ({ updateId: r.u, storyId: r.s, windowIndex: Number(r.w) })),
      members: members.map((r) => ({ articleId: r.a, storyId: r.s, updateId: r.u, seq: Number(r.seq), cosine: Number(r.c), score: Number(r.sc) })),
    };
  }

  /**
   * New stories, updates and members in one transaction (appender into staging, then insert what
   * is not there yet, so writing a batch twice changes nothing); the articles' centroid_distance
   * and cluster_probability follow.
   */
  async write(rows: { stories: StoredStory[]; updates: StoredUpdate[]; members: StoredMember[] }, at: Date): Promise<void> {
    if (rows.members.length === 0 && rows.stories.length === 0 && rows.updates.length === 0) return;
    const ts = micros(at);
    await this.db.withConnection(async (conn) => {
      const stgS = await stage(
        conn,
        'stories',
        [
          ['story_id', 'varchar'],
          ['founding', 'varchar'],
          ['ts', 'bigint'],
        ],
        rows.stories.map((s) => [s.storyId, s.foundingId, ts]),
      );
      const stgU = await stage(
        conn,
        'story_updates',
        [
          ['update_id', 'varchar'],
          ['story_id', 'varchar'],
          ['w', 'int'],
          ['ts', 'bigint'],
        ],
        rows.updates.map((u) => [u.updateId, u.storyId, u.windowIndex, ts]),
      );
      const stgM = await stage(
        conn,
        'story_members',
        [
          ['article_id', 'varchar'],
          ['story_id', 'varchar'],
          ['update_id', 'varchar'],
          ['seq', 'bigint'],
          ['cosine', 'double'],
          ['score', 'double'],
          ['ts', 'bigint'],
        ],
        rows.members.map((m) => [m.articleId, m.storyId, m.updateId, m.seq, m.cosine, m.score, ts]),
      );
      await conn.run('BEGIN TRANSACTION');
      try {
        await conn.run(`INSERT INTO stories SELECT story_id::UUID, founding::UUID, make_timestamp(ts) FROM ${stgS}
          WHERE story_id::UUID NOT IN (SELECT story_id FROM stories)`);
        await conn.run(`INSERT INTO story_updates SELECT update_id::UUID, story_id::UUID, w, make_timestamp(ts) FROM ${stgU}
          WHERE update_id::UUID NOT IN (SELECT update_id FROM story_updates)`);
        await conn.run(`INSERT INTO story_update_articles SELECT article_id::UUID, story_id::UUID, update_id::UUID, seq, cosine, score, make_timestamp(ts) FROM ${stgM}
          WHERE article_id::UUID NOT IN (SELECT article_id FROM story_update_articles)`);
        await conn.run(`UPDATE articles SET centroid_distance = 1 - s.cosine, cluster_probability = s.score
          FROM ${stgM} s WHERE articles.article_id = s.article_id::UUID`);
        await conn.run('COMMIT');
      } catch (e) {
        await conn.run('ROLLBACK');
        throw e;
      }
    });
  }
}
