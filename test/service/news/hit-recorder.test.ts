/**
 * Hit events buffered off the request path: all written by the flush a stop does; a failed write
 * stops nothing after it and loses nothing (tried again, then kept in the dead-letter file).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Db } from '../../../service/store/db.js';
import { NewsStore, type HitEvent } from '../../../service/store/news.js';
import { DEAD_LETTER_FILE, HitRecorder } from '../../../service/news/hits.js';
import { tempDir } from '../../helpers/service.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

async function openStore(file?: string): Promise<{ db: Db; store: NewsStore; file: string }> {
  if (!file) {
    const dir = tempDir();
    dirs.push(dir);
    file = path.join(dir, 'service.duckdb');
  }
  const db = await Db.open(file);
  return { db, store: new NewsStore(db), file };
}

type Row = {
  ts: number;
  kind: string;
  key_id: string | null;
  org_id: string | null;
  domain: string;
  article_id: string;
  query: string | null;
  synthetic: boolean;
};
const rowsOf = (db: Db) =>
  db.all<Row>(`SELECT epoch_ms(ts)::DOUBLE AS ts, kind, key_id, org_id, domain, article_id::VARCHAR AS article_id, query, synthetic FROM hit_events`);
const asRow = (e: HitEvent): Row => ({
  ts: e.ts.getTime(),
  kind: e.kind,
  key_id: e.keyId,
  org_id: e.orgId,
  domain: e.domain,
  article_id: e.articleId,
  query: e.query,
  synthetic: !!e.synthetic,
});
const byKey = (a: Row, b: Row) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);

describe('hit recorder', () => {
  it('writes every event recorded before a stop, batches in flight included, as recorded', async () => {
    const { db, store, file } = await openStore();
    // a long delay: only the batch size and the stop's flush write anything
    const hits = new HitRecorder(store, { maxDelayMs: 60_000, maxBatch: 700 });
    const all: HitEvent[] = [];
    const queries = ['ukraine', null, 'quote " back\\slash\nnewline', 'lone \ud800 surrogate', 'nul \u0000 byte', 'emoji 😀 é'];
    for (let i = 0; i < 300; i++) {
      const page: HitEvent[] = Array.from({ length: 1 + (i % 10) }, (_, j) => ({
        ts: new Date(1_700_000_000_000 + i * 1000),
        kind: (['surface', 'full_text', 'citation', 'grounded'] as const)[i % 4]!,
        keyId: i % 7 ? `key${i % 3}` : null,
        orgId: i % 5 ? 'org1' : null,
        domain: j % 2 ? 'reuters.com' : 'bbc.co.uk',
        articleId: crypto.randomUUID(),
        query: queries[i % queries.length]!,
        synthetic: i % 11 === 0,
      }));
      // the events of one search share their fields; some calls mix kinds
      const events: HitEvent[] = i % 13 ? page : page.map((e, j) => ({ ...e, kind: j % 2 ? 'surface' : 'full_text' }));
      hits.record(events);
      all.push(...events);
    }
    // what NewsService.close() does on a stop
    await hits.flush();
    db.close();
    const reopened = await openStore(file);
    const rows = await rowsOf(reopened.db);
    reopened.db.close();
    const expected = all.map((e) => asRow({ ...e, query: e.query === 'lone \ud800 surrogate' ? 'lone \ufffd surrogate' : e.query }));
    expect(rows.length).toBe(all.length);
    expect(rows.sort(byKey)).toEqual(expected.sort(byKey));
  });

  it('keeps writing after a batch fails', async () => {
    const { db, store } = await openStore();
    const hits = new HitRecorder(store, { maxDelayMs: 60_000, maxBatch: 10_000 });
    const ev = (articleId: string): HitEvent => ({
      ts: new Date(1_700_000_000_000),
      kind: 'surface',
      keyId: 'k',
      orgId: null,
      domain: 'reuters.com',
      articleId,
      query: 'q',
    });
    hits.record([ev('not a uuid')]);
    await expect(hits.flush()).rejects.toThrow();
    const good = crypto.randomUUID();
    hits.record([ev(good)]);
    await hits.flush();
    expect((await rowsOf(db)).map((r) => r.article_id)).toEqual([good]);
    db.close();
  });

  it('a batch whose write fails is written by a later flush, on its own, when the store takes it again', async () => {
    const { db, store } = await openStore();
    const real = store.recordHits.bind(store);
    let failures = 1;
    store.recordHits = async (events) => {
      if (failures > 0) {
        failures--;
        throw new Error('IO Error: disk full (simulated)');
      }
      return real(events);
    };
    const hits = new HitRecorder(store, { maxDelayMs: 60_000, maxBatch: 10_000 });
    const ev = (articleId: string): HitEvent => ({
      ts: new Date(1_700_000_000_000),
      kind: 'surface',
      keyId: 'k',
      orgId: null,
      domain: 'reuters.com',
      articleId,
      query: 'q',
    });
    const first = [crypto.randomUUID(), crypto.randomUUID()];
    hits.record(first.map(ev));
    await expect(hits.flush()).rejects.toThrow(/disk full/);
    expect(await rowsOf(db)).toEqual([]);
    const second = crypto.randomUUID();
    hits.record([ev(second)]);
    await hits.flush();
    expect((await rowsOf(db)).map((r) => r.article_id).sort()).toEqual([...first, second].sort());
    await hits.close();
    expect(fs.existsSync(hits.deadLetterFile!)).toBe(false);
    db.close();
  });

  it('a batch that never goes in is kept in the dead-letter file after its tries; the rest is written', async () => {
    const { db, store, file } = await openStore();
    const hits = new HitRecorder(store, { maxDelayMs: 60_000, maxBatch: 10_000, maxTries: 3 });
    const ev = (articleId: string): HitEvent => ({
      ts: new Date(1_700_000_000_000),
      kind: 'surface',
      keyId: 'k',
      orgId: null,
      domain: 'reuters.com',
      articleId,
      query: 'q',
    });
    const bad = [ev('not a uuid'), ev('also not')];
    hits.record(bad);
    await expect(hits.flush()).rejects.toThrow();
    const good = [crypto.randomUUID(), crypto.randomUUID()];
    hits.record([ev(good[0]!)]);
    await hits.flush(); // the bad batch's second try, on its own, then the good one
    expect(fs.existsSync(path.join(path.dirname(file), DEAD_LETTER_FILE))).toBe(false);
    hits.record([ev(good[1]!)]);
    await hits.flush(); // the third try: into the dead-letter file
    expect((await rowsOf(db)).map((r) => r.article_id).sort()).toEqual([...good].sort());
    const kept = fs
      .readFileSync(path.join(path.dirname(file), DEAD_LETTER_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(kept.map((e) => e.articleId)).toEqual(['not a uuid', 'also not']);
    expect(kept[0]).toMatchObject({ kind: 'surface', keyId: 'k', domain: 'reuters.com', query: 'q', ts: new Date(1_700_000_000_000).toISOString() });
    await hits.flush();
    expect(
      fs
        .readFileSync(path.join(path.dirname(file), DEAD_LETTER_FILE), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(2); // kept once
    db.close();
  });

  it('close() keeps a batch still failing in the dead-letter file at once', async () => {
    const { db, store, file } = await openStore();
    const hits = new HitRecorder(store, { maxDelayMs: 60_000, maxBatch: 10_000, maxTries: 5 });
    hits.record([{ ts: new Date(1_700_000_000_000), kind: 'full_text', keyId: null, orgId: 'o', domain: 'bbc.co.uk', articleId: 'nope', query: null }]);
    await expect(hits.flush()).rejects.toThrow();
    await hits.close();
    const kept = fs
      .readFileSync(path.join(path.dirname(file), DEAD_LETTER_FILE), 'utf8')
      .trim()
      .split('\n');
    expect(kept.map((l) => JSON.parse(l).articleId)).toEqual(['nope']);
    db.close();
  });
});
