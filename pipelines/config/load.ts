/**
 * Loading the project file: find it (`--config`, else `newsflow.yaml`/`newsflow.yml` in the
 * working directory), parse the YAML keeping every node's position, put `${ENV_VAR}` values in,
 * validate with the zod schema, and say what is wrong one line per error:
 * `file:line:col: field.path: what it takes`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { checksKeyHint, registeredSchemas, type ProjectFile } from './schema.js';
import { ConfigError } from './find.js';

export { ConfigError, findProjectFile, PROJECT_FILE_NAMES } from './find.js';

type Path = (string | number)[];
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Files larger than this are refused before parsing (a project file is a few KB). */
const MAX_BYTES = 1 << 20;

export const fieldPath = (p: readonly PropertyKey[]): string =>
  p.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '') || '(top level)';

/** Parse and validate project-file text; `file` names it in messages, `env` fills `${VAR}`. */
export function parseProjectFile(text: string, file: string, env: NodeJS.ProcessEnv = process.env): ProjectFile {
  const name = path.relative(process.cwd(), file) || file;
  if (Buffer.byteLength(text) > MAX_BYTES) throw new ConfigError([`${name}:1:1: the file is over ${MAX_BYTES >> 20} MB; a project file is a few KB`]);
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true, strict: true });
  const at = (offset: number | undefined) => {
    const { line, col } = lc.linePos(offset ?? 0);
    return `${name}:${line}:${col}`;
  };
  if (doc.errors.length) {
    throw new ConfigError(doc.errors.map((e) => `${at(e.pos[0])}: ${yamlMessage(e.message)}`));
  }
  const lines: string[] = [];
  // keys that would reach an object's prototype are refused before anything is built
  walk(doc.contents as Node | null, [], (node, p) => {
    if (isMap(node))
      for (const pair of node.items) {
        const k = isScalar(pair.key) ? String(pair.key.value) : null;
        if (k !== null && FORBIDDEN_KEYS.has(k)) lines.push(`${at(nodeStart(pair.key))}: ${fieldPath([...p, k])}: "${k}" is not a field of the project file`);
      }
  });
  if (lines.length) throw new ConfigError(lines);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new ConfigError([`${at(0)}: ${(e as Error).message}`]);
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new ConfigError([`${at(nodeStart(doc.contents))}: the project file must be a mapping of keys (api, warehouse, temporal, limits, pipelines, ...)`]);

  // ${VAR} and ${VAR:-default} in string values
  interpolate(data, [], (p, msg) => lines.push(`${at(nodeStart(nodeAt(doc, p)))}: ${fieldPath(p)}: ${msg}`), env);
  const key = (data as { api?: { key?: unknown } }).api?.key;
  if (typeof key === 'string' && !/^\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}$/.test(rawAt(doc, ['api', 'key']) ?? '')) {
    lines.push(
      `${at(nodeStart(nodeAt(doc, ['api', 'key'])))}: api.key: write the key as \${ENV_VAR} (e.g. \${NEWSFLOW_API_KEY}); secrets never sit in the file`,
    );
  }
  if (lines.length) throw new ConfigError(lines);

  const r = registeredSchemas().file.safeParse(data);
  if (r.success) return r.data;
  throw new ConfigError(r.error.issues.map((i) => issueLine(i, doc, data, at)));
}

/** Read, parse and validate a project file. */
export function loadProjectFile(file: string, env: NodeJS.ProcessEnv = process.env): ProjectFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError([`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`]);
  }
  return parseProjectFile(text.replace(/^\uFEFF/, ''), file, env);
}

function yamlMessage(m: string): string {
  // the yaml package's messages end with the position and a code frame; keep the first sentence
  return m.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

function walk(node: Node | null | undefined, p: Path, visit: (n: Node, p: Path) => void): void {
  if (!node) return;
  visit(node, p);
  if (isMap(node)) for (const pair of node.items) walk(pair.value as Node, [...p, isScalar(pair.key) ? String(pair.key.value) : '?'], visit);
  else if (isSeq(node)) node.items.forEach((item, i) => walk(item as Node, [...p, i], visit));
}

const nodeStart = (n: unknown): number | undefined =>
  n && typeof n === 'object' && 'range' in n ? (n as { range?: [number, number, number] }).range?.[0] : undefined;

/** The deepest node of the document on `p` (the closest existing parent when `p` is missing). */
function nodeAt(doc: Document, p: readonly PropertyKey[]): Node | undefined {
  let node = doc.contents as Node | null;
  let found: Node | undefined = node ?? undefined;
  for (const k of p) {
    if (isMap(node)) {
      const pair = node.items.find((it) => isPair(it) && isScalar(it.key) && String(it.key.value) === String(k));
      if (!pair) break;
      node = (pair.value as Node) ?? (pair.key as Node);
    } else if (isSeq(node) && typeof k === 'number') {
      node = (node.items[k] as Node) ?? null;
    } else break;
    if (!node) break;
    found = node;
  }
  return found;
}

/** The key node of `key` in the map on `p`. */
function keyNodeAt(doc: Document, p: readonly PropertyKey[], key: string): Node | undefined {
  const map = nodeAt(doc, p);
  if (!isMap(map)) return map;
  const pair = map.items.find((it) => isScalar(it.key) && String(it.key.value) === key);
  return (pair?.key as Node) ?? map;
}

function rawAt(doc: Document, p: Path): string | undefined {
  const n = nodeAt(doc, p);
  return isScalar(n) && typeof n.source === 'string' ? n.source : isScalar(n) ? String(n.value) : undefined;
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
function interpolate(v: unknown, p: Path, fail: (p: Path, msg: string) => void, env: NodeJS.ProcessEnv): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      if (typeof x === 'string') v[i] = fill(x, [...p, i]);
      else interpolate(x, [...p, i], fail, env);
    });
  } else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (typeof o[k] === 'string') o[k] = fill(o[k] as string, [...p, k]);
      else interpolate(o[k], [...p, k], fail, env);
    }
  }
  function fill(s: string, at: Path): string {
    return s.replace(VAR, (_, name: string, dflt: string | undefined) => {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
      if (dflt !== undefined) return dflt;
      fail(at, `\${${name}} is not set: export ${name}=... (or write \${${name}:-default})`);
      return '';
    });
  }
}

type Issue = z.core.$ZodIssue;

/** One line for one zod issue: where, which field, what it takes. */
function issueLine(i: Issue, doc: Document, data: unknown, at: (o: number | undefined) => string): string {
  const p = i.path as PropertyKey[];
  if (i.code === 'unrecognized_keys') {
    return i.keys
      .map((k) => {
        const where = `${at(nodeStart(keyNodeAt(doc, p, k)))}: ${fieldPath([...p, k])}`;
        // checks on a kind that takes none: say which kinds do
        const entry = p[0] === 'pipelines' && typeof p[1] === 'number' && (p.length === 2 || (p.length === 3 && p[2] === 'checks'));
        const checksHint = entry ? checksKeyHint((valueAt(data, p.slice(0, 2)) as { kind?: unknown } | undefined)?.kind, k, p.length === 3) : null;
        if (checksHint) return `${where}: ${checksHint}`;
        const allowed = allowedKeys(p, data);
        const hint = allowed.length ? `; keys here: ${allowed.join(', ')}` : '';
        return `${where}: unknown key${closest(k, allowed)}${hint}`;
      })
      .join('\n');
  }
  const node = nodeAt(doc, p);
  const missing = valueAt(data, p) === undefined;
  return `${at(nodeStart(node))}: ${fieldPath(p)}: ${describeIssue(i, missing)}`;
}

function describeIssue(i: Issue, missing: boolean): string {
  switch (i.code) {
    case 'invalid_type':
      if (missing) return `is required (takes ${article(i.expected)})`;
      return received(i) === 'null'
        ? `takes ${article(i.expected)}, got nothing (an empty key: give its fields or remove it)`
        : `takes ${article(i.expected)}, got ${received(i)}`;
    case 'invalid_union':
      if ('discriminator' in i && i.discriminator) {
        const options = (i as { options?: unknown[] }).options ?? [];
        return missing ? `is required, one of: ${options.join(', ')}` : `unknown ${String(i.discriminator)}; takes one of: ${options.join(', ')}`;
      }
      return i.message;
    case 'invalid_value':
      return `takes one of: ${i.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return i.origin === 'array'
        ? `takes at least ${i.minimum} item${i.minimum === 1 ? '' : 's'}`
        : i.origin === 'string'
          ? `takes at least ${i.minimum} character${i.minimum === 1 ? '' : 's'}`
          : `takes a number ${i.inclusive ? '>=' : '>'} ${i.minimum}`;
    case 'too_big':
      return i.origin === 'array'
        ? `takes at most ${i.maximum} items`
        : i.origin === 'string'
          ? `takes at most ${i.maximum} characters`
          : `takes a number ${i.inclusive ? '<=' : '<'} ${i.maximum}`;
    case 'invalid_format':
      if (i.format === 'url') return 'takes an http(s) URL, e.g. https://api.example.com';
      if (i.format === 'email') return 'takes an email address, e.g. ops@example.com';
      return i.format === 'regex' ? `takes ${i.message.replace(/^Invalid (string|input): /i, '')}` : `takes a ${i.format}`;
    default:
      return i.message;
  }
}

const article = (t: string) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);
function received(i: Issue): string {
  const m = /received (\w+)/.exec(i.message);
  return m ? m[1]! : 'something else';
}

function valueAt(data: unknown, p: readonly PropertyKey[]): unknown {
  let v = data;
  for (const k of p) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k as string];
  }
  return v;
}

/** The keys the schema takes at `p` (following the data's `kind` through the pipeline union). */
function allowedKeys(p: readonly PropertyKey[], data: unknown): string[] {
  let s: z.ZodType | undefined = registeredSchemas().file as unknown as z.ZodType;
  for (let n = 0; n <= p.length && s; n++) {
    s = unwrap(s, valueAt(data, p.slice(0, n)));
    if (n === p.length) break;
    const k = p[n];
    const def = (s as { def?: { type?: string } }).def;
    if (def?.type === 'array') s = (s as unknown as { element: z.ZodType }).element;
    else if (def?.type === 'object') s = (s as unknown as { shape: Record<string, z.ZodType> }).shape[k as string];
    else return [];
  }
  s = s && unwrap(s, valueAt(data, p));
  return s && (s as { def?: { type?: string } }).def?.type === 'object' ? Object.keys((s as unknown as { shape: object }).shape) : [];
}

function unwrap(s: z.ZodType, value: unknown): z.ZodType {
  for (;;) {
    const def = (s as { def?: { type?: string; innerType?: z.ZodType; in?: z.ZodType; options?: z.ZodType[] } }).def;
    if (!def) return s;
    if (def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'prefault') s = def.innerType!;
    else if (def.type === 'pipe') s = def.in!;
    else if (def.type === 'union' && def.options) {
      const kind = (value as { kind?: unknown } | undefined)?.kind;
      const match = def.options.find((o) => (o as unknown as { shape?: { kind?: { value?: unknown } } }).shape?.kind?.value === kind);
      if (!match) return s;
      s = match;
    } else return s;
  }
}

/** `; did you mean "x"?` when a key is one edit or two away from an allowed one. */
function closest(k: string, allowed: string[]): string {
  let best: string | null = null;
  let bestD = 3;
  for (const a of allowed) {
    const d = editDistance(k.toLowerCase(), a.toLowerCase());
    if (d < bestD) [best, bestD] = [a, d];
  }
  return best ? ` (did you mean "${best}"?)` : '';
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}
