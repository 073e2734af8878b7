/** Chat threads: the turns of a conversation, kept so a request with its `thread_id` continues it. */
import crypto from 'node:crypto';
import type { Db } from '../store/db.js';
import type { LlmMessage } from '../llm/index.js';

export class ThreadStore {
  constructor(private readonly db: Db) {}

  /** A new thread row (`id` chosen beforehand when the id is announced before the row exists). */
  async create(userId: string, keyId: string | null, id: string = crypto.randomUUID()): Promise<string> {
    await this.db.run('INSERT INTO chat_threads VALUES ($1, $2, $3, now(), now())', [id, userId, keyId]);
    return id;
  }

  /** The thread's turns, or null when it does not exist for this user. */
  async messages(threadId: string, userId: string): Promise<LlmMessage[] | null> {
    const t = await this.db.one('SELECT 1 FROM chat_threads WHERE thread_id = $1 AND user_id = $2', [threadId, userId]);
    if (!t) return null;
    return this.db.all<LlmMessage>('SELECT role, content FROM chat_messages WHERE thread_id = $1 ORDER BY seq', [threadId]);
  }

  async append(threadId: string, messages: LlmMessage[]): Promise<void> {
    if (!messages.length) return;
    await this.db.tx(async (q) => {
      const [r] = await q.all<{ n: number }>('SELECT coalesce(max(seq), -1)::INTEGER AS n FROM chat_messages WHERE thread_id = $1', [threadId]);
      let seq = Number(r?.n ?? -1);
      for (const m of messages) await q.run('INSERT INTO chat_messages VALUES ($1, $2, $3, $4, now())', [threadId, ++seq, m.role, m.content]);
      await q.run('UPDATE chat_threads SET updated_at = now() WHERE thread_id = $1', [threadId]);
    });
  }
}
