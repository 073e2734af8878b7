/**
 * Row hashing of `land`: the content hash of each landed row (its data columns and its child
 * rows), so a replayed batch is told unchanged without comparing columns; v2 hashes and the
 * recognition of the hashes of before v2.
 */
import crypto from 'node:crypto';
import type { TableDef } from './tables/table-def.js';

/** The columns a row's content hash covers: all but the load columns. */
export const hashedColumns = (t: TableDef) => {
  const skip = new Set(['row_hash', 'last_load_id', ...(t.loadColumns ?? [])]);
  return t.columns.filter((c) => !skip.has(c.name)).map((c) => c.name);
};

/**
 * Row hashes carry their version: `v2:` + the sha1 of a compact, self-delimiting encoding of the
 * row's hashed values and its child rows (`rowHashes`). A hash without the prefix is of before v2
 * (the sha1 of the JSON text of the row and its children, `legacyRowHash`): a row landed with it
 * and landed again unchanged is recognised by that hash, computed only for such rows (`legacySame`),
 * and keeps it until its content changes (then it is rewritten with a v2 hash).
 */
export const HASH_V2 = 'v2:';
export const isV2 = (h: string | null | undefined) => typeof h === 'string' && h.startsWith(HASH_V2);

/** One value, self-delimiting: a type tag, then the length of text values (no escaping, no JSON). */
function enc(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return `s${v.length}:${v}`;
    case 'number':
    case 'bigint':
      return `n${v};`;
    case 'boolean':
      return v ? 'T' : 'F';
    case 'undefined':
      return 'N';
    default: {
      if (v === null) return 'N';
      const j = JSON.stringify(v) ?? '';
      return `j${j.length}:${j}`;
    }
  }
}

/**
 * The encodings of one column's values, the repeated strings among them computed once (a column of
 * countries, entity types, keywords): kept while fewer than half the values seen are distinct,
 * dropped (each value encoded anew) once a column shows itself unique (titles, ids, texts).
 */
class ColumnEnc {
  private cache: Map<string, string> | null = new Map();
  private seen = 0;
  enc(v: unknown): string {
    const cache = this.cache;
    if (cache === null || typeof v !== 'string') return enc(v);
    let e = cache.get(v);
    if (e === undefined) {
      e = enc(v);
      cache.set(v, e);
      if (cache.size > 64 && cache.size * 2 > this.seen) this.cache = null;
    }
    this.seen++;
    return e;
  }
}

/** `[...new Set(xs)].sort()` (UTF-16 code unit order), in place for the few child rows a parent mostly has. */
function uniqSorted(xs: string[]): string[] {
  if (xs.length < 2) return xs;
  if (xs.length > 16) return [...new Set(xs)].sort();
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i]!;
    let j = i - 1;
    for (; j >= 0 && xs[j]! > x; j--) xs[j + 1] = xs[j]!;
    xs[j + 1] = x;
  }
  let w = 1;
  for (let i = 1; i < xs.length; i++) if (xs[i] !== xs[w - 1]) xs[w++] = xs[i]!;
  xs.length = w;
  return xs;
}

/**
 * The content hash of each row (its `hashed` columns) and, with `kids`, of its child rows in each
 * child table (as a set: deduplicated and sorted, without the parent key column, which the parent
 * row holds): `v2:` + sha1 (hex) of the values' encodings (`enc`).
 */
export function rowHashes(
  hashed: string[],
  rows: Record<string, unknown>[],
  kids: { table: TableDef; key: string; rows: Record<string, unknown>[] }[],
): string[] {
  const keyOf = kids[0]?.key;
  // per parent row, its key and the slot of its key (rows of one key share it: they share their children)
  const keys = new Array<string>(keyOf ? rows.length : 0);
  const slotOf = new Int32Array(keys.length);
  const slotByKey = new Map<string, number>();
  if (keyOf)
    for (let ri = 0; ri < rows.length; ri++) {
      const k = String(rows[ri]![keyOf]);
      let slot = slotByKey.get(k);
      if (slot === undefined) slotByKey.set(k, (slot = slotByKey.size));
      keys[ri] = k;
      slotOf[ri] = slot;
    }
  // per child table, per slot: its child rows' encodings, one string or a list (no array for a
  // lone child). Children mostly come grouped by parent, in the parents' order: the slot is the
  // next parent's when the key is (else looked up); a child of no parent of the batch is hashed into none.
  const kidEnc = kids.map((ch) => {
    const per = new Array<string | string[] | undefined>(slotByKey.size);
    const cols = ch.table.columns.map((c) => c.name).filter((n) => n !== ch.key);
    const encs = cols.map(() => new ColumnEnc());
    let last: string | undefined;
    let slot: number | undefined;
    let at = 0;
    for (const r of ch.rows) {
      const k = String(r[ch.key]);
      if (k !== last) {
        if (at < keys.length && keys[at] === k) slot = slotOf[at++];
        else slot = slotByKey.get(k);
        last = k;
      }
      if (slot === undefined) continue;
      let e = '';
      for (let j = 0; j < cols.length; j++) e += encs[j]!.enc(r[cols[j]!]);
      const had = per[slot];
      if (had === undefined) per[slot] = e;
      else if (typeof had === 'string') per[slot] = [had, e];
      else had.push(e);
    }
    return per;
  });
  const encs = hashed.map(() => new ColumnEnc());
  const out = new Array<string>(rows.length);
  for (let ri = 0; ri < rows.length; ri++) {
    const r = rows[ri]!;
    let s = '';
    for (let j = 0; j < hashed.length; j++) s += encs[j]!.enc(r[hashed[j]!]);
    for (let i = 0; i < kidEnc.length; i++) {
      const set = kidEnc[i]![slotOf[ri]!];
      if (set === undefined) s += '#0:';
      else if (typeof set === 'string') s += `#1:${set}`;
      else {
        const u = uniqSorted(set);
        s += `#${u.length}:${u.join('')}`;
      }
    }
    out[ri] = HASH_V2 + crypto.hash('sha1', s);
  }
  return out;
}

/** The hash of before v2 (no prefix): sha1 of the JSON text of the row's hashed values and its children's rows. */
export function legacyRowHash(hashed: string[], r: Record<string, unknown>, children?: string[][]): string {
  const own = hashed.map((n) => r[n] ?? null);
  return crypto.hash('sha1', JSON.stringify(children ? [own, children] : own));
}

/**
 * Of `stored` (the lake's pre-v2 hashes of rows this batch holds, by the row's key as `keyOf`
 * gives it; the last row of a key wins, as in `land`), those equal to the pre-v2 hash of the
 * batch's row: those rows are unchanged.
 */
export function legacySame(
  hashed: string[],
  rows: Record<string, unknown>[],
  kids: { table: TableDef; key: string; rows: Record<string, unknown>[] }[],
  keyOf: (r: Record<string, unknown>) => string,
  stored: { key: string; hash: string }[],
): Set<string> {
  const want = new Map(stored.map((x) => [x.key, x.hash]));
  const byKey = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const k = keyOf(r);
    if (want.has(k)) byKey.set(k, r);
  }
  const kidText = new Map<string, string[][]>();
  kids.forEach((ch, i) => {
    const names = ch.table.columns.map((c) => c.name);
    for (const r of ch.rows) {
      const k = String(r[ch.key]);
      if (!want.has(k)) continue;
      let per = kidText.get(k);
      if (!per) kidText.set(k, (per = kids.map(() => [])));
      per[i]!.push(JSON.stringify(names.map((n) => r[n] ?? null)));
    }
  });
  const none = kids.map(() => [] as string[]);
  const uniqSorted = (xs: string[]) => (xs.length < 2 ? xs : [...new Set(xs)].sort());
  const same = new Set<string>();
  for (const [k, r] of byKey) {
    const h = legacyRowHash(hashed, r, kids.length ? (kidText.get(k) ?? none).map(uniqSorted) : undefined);
    if (h === want.get(k)) same.add(h);
  }
  return same;
}
