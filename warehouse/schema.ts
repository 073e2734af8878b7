/**
 * Schema changes, seen and governed: each load's API objects (the `raw` of its rows) are compared
 * with what the table knows of them (the spec/ schema the rows are mapped from, and the fields
 * added since); a field that is new, or one of the table's fields that no object of the load
 * carried, writes a `_schema_changes` row (table, path, first load, example value type). A
 * pipeline's contract says what happens next:
 * - `evolve` (the default): a new scalar or object field becomes a column (`ALTER TABLE ... ADD
 *   COLUMN`, filled from `raw` for the rows landed before), and later loads fill it;
 * - `freeze`: the run fails, non-retryable, naming the path (`articles.foo`);
 * - `discard`: the field is left out of `raw` and of the columns; the change is still recorded.
 * A missing required field never gets this far: the client refuses the response (spec/).
 *
 * The walk is linear in the objects' size and bounded: it descends only into fields the schema
 * declares as objects or arrays of objects (an unknown field is reported, not walked), at most
 * `MAX_ITEMS` elements of an array, at most `MAX_NEW` new paths per load.
 */
import type { Column, TableDef } from './tables/table-def.js';

export type SchemaContract = 'evolve' | 'freeze' | 'discard';
export const SCHEMA_CONTRACTS: SchemaContract[] = ['evolve', 'freeze', 'discard'];

/** What a load's objects are walked against: a tree of the fields the schema declares. */
export type Shape = { kind: 'object'; fields: Map<string, Shape> } | { kind: 'array'; of: Shape } | { kind: 'any' };

const MAX_ITEMS = 50;
const MAX_NEW = 100;

interface ZodLike {
  _zod: { def: { type: string; shape?: Record<string, ZodLike>; innerType?: ZodLike; element?: ZodLike; in?: ZodLike } };
}

/** The shape of a zod schema (spec/): objects and arrays of objects are walked, everything else takes any value. */
export function shapeOf(z: unknown, depth = 0): Shape {
  const def = (z as ZodLike)._zod?.def;
  if (!def || depth > 8) return { kind: 'any' };
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return shapeOf(def.innerType, depth);
    case 'pipe':
      return shapeOf(def.in, depth);
    case 'object':
      return { kind: 'object', fields: new Map(Object.entries(def.shape ?? {}).map(([k, v]) => [k, shapeOf(v, depth + 1)])) };
    case 'array':
      return { kind: 'array', of: shapeOf(def.element, depth + 1) };
    default:
      return { kind: 'any' };
  }
}

/** A field the schema does not declare, as a load's objects carry it: its path and an example value. */
export interface SeenPath {
  path: string;
  example: unknown;
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The paths of `objects` that `shape` (plus `known`, the paths added since) does not declare: `a.b`, `a[].b`. */
export function newPaths(objects: unknown[], shape: Shape, known: Set<string>): SeenPath[] {
  const out = new Map<string, SeenPath>();
  const walk = (v: unknown, s: Shape, prefix: string) => {
    if (out.size >= MAX_NEW) return;
    if (s.kind === 'object' && isPlain(v)) {
      for (const k of Object.keys(v)) {
        const p = prefix ? `${prefix}.${k}` : k;
        const sub = s.fields.get(k);
        if (sub) walk(v[k], sub, p);
        else if (!known.has(p)) {
          const had = out.get(p);
          if (!had) out.set(p, { path: p, example: v[k] });
          else if (had.example === null || had.example === undefined) had.example = v[k];
        }
      }
    } else if (s.kind === 'array' && Array.isArray(v)) {
      for (let i = 0; i < v.length && i < MAX_ITEMS; i++) walk(v[i], s.of, `${prefix}[]`);
    }
  };
  for (const o of objects) walk(o, shape, '');
  return [...out.values()];
}

/** The value at a dotted path of an object (no arrays), or undefined. */
export function valueAt(o: unknown, path: string): unknown {
  let v = o;
  for (const k of path.split('.')) {
    if (!isPlain(v)) return undefined;
    v = v[k];
  }
  return v;
}

/** Whether some object carries the path (the value may be null). */
const carries = (objects: unknown[], path: string) =>
  objects.some((o) => {
    const ks = path.split('.');
    let v = o;
    for (const k of ks) {
      if (!isPlain(v) || !(k in v)) return false;
      v = v[k];
    }
    return true;
  });

/** The fields of the table's schema that are columns (mapped from the field of the same name), and the evolved ones, none of which any object carried. */
export function vanishedPaths(objects: unknown[], shape: Shape, table: TableDef, evolved: EvolvedColumn[]): string[] {
  if (!objects.length || shape.kind !== 'object') return [];
  const declared = table.columns.filter((c) => shape.fields.has(c.name) && c.name !== 'raw').map((c) => c.name);
  return [...declared, ...evolved.map((c) => c.path)].filter((p) => !carries(objects, p));
}

/** A value's type as `_schema_changes` records it, and the column type it evolves to. */
export function typeOf(v: unknown): { name: string; sql: string; kind: Column['kind'] } {
  if (typeof v === 'string') return { name: 'string', sql: 'VARCHAR', kind: 'varchar' };
  if (typeof v === 'boolean') return { name: 'boolean', sql: 'BOOLEAN', kind: 'bool' };
  if (typeof v === 'number')
    return Number.isInteger(v) ? { name: 'integer', sql: 'BIGINT', kind: 'bigint' } : { name: 'number', sql: 'DOUBLE', kind: 'double' };
  if (Array.isArray(v)) return { name: 'array', sql: 'JSON', kind: 'varchar' };
  if (v === null || v === undefined) return { name: 'null', sql: 'JSON', kind: 'varchar' };
  return { name: 'object', sql: 'JSON', kind: 'varchar' };
}

/** A column schema evolution added: filled from `raw` at `path`. */
export interface EvolvedColumn extends Column {
  path: string;
}

/** The column name of a new path (`foo`, `assets.audio` -> `assets_audio`), or null when it cannot be one (an array's field, odd characters). */
export function columnFor(path: string, taken: Set<string>): string | null {
  if (path.length > 60 || path.includes('[]') || !/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(path)) return null;
  let name = path.replaceAll('.', '_').toLowerCase();
  while (taken.has(name)) name = `${name}_`;
  return name;
}

/** The staged value of an evolved column from its row's raw object. */
export function evolvedValue(c: EvolvedColumn, raw: unknown): unknown {
  const v = valueAt(raw, c.path);
  if (v === undefined || v === null) return null;
  if (c.sql === 'JSON') return JSON.stringify(v);
  if (c.sql === 'VARCHAR') return typeof v === 'string' ? v : JSON.stringify(v);
  if (c.sql === 'BIGINT') return typeof v === 'number' && Number.isInteger(v) ? v : null;
  if (c.sql === 'DOUBLE') return typeof v === 'number' ? v : null;
  if (c.sql === 'BOOLEAN') return typeof v === 'boolean' ? v : null;
  return null;
}

/** The SQL that fills an evolved column from `raw` (rows landed before it was added). */
export function backfillSql(table: string, c: EvolvedColumn): string {
  const jp = `'$.${c.path}'`;
  const expr = c.sql === 'JSON' ? `json_extract(raw, ${jp})` : `TRY_CAST(json_extract_string(raw, ${jp}) AS ${c.sql})`;
  return `UPDATE ${table} SET ${c.name} = ${expr} WHERE raw IS NOT NULL AND json_exists(raw, ${jp})`;
}

/** Remove `path` from an object (a discarded field). */
export function dropPath(o: unknown, path: string): void {
  const ks = path.split('.');
  let v = o;
  for (const k of ks.slice(0, -1)) {
    if (!isPlain(v)) return;
    v = v[k];
  }
  if (isPlain(v)) delete v[ks[ks.length - 1]!];
}

/** A contract `freeze` refused: the paths that changed. Non-retryable: the same response changes the same way. */
export class SchemaContractError extends Error {
  constructor(
    readonly table: string,
    readonly changes: { path: string; change: 'new' | 'vanished'; type: string }[],
  ) {
    super(
      `schema contract freeze: ${changes
        .map((c) => `${table}.${c.path} ${c.change === 'new' ? `is new (${c.type})` : 'vanished'}`)
        .join(', ')}; set schema: evolve (or discard) on the pipeline to accept it`,
    );
    this.name = 'SchemaContractError';
  }
}
