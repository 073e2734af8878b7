/**
 * Request validation against spec/: query strings are coerced by the target schema's type
 * (repeated keys -> arrays, "true"/"True"/"yes" -> true, "10" -> 10), then parsed by zod.
 */
import { z } from 'zod';
import { INPUT_LIMITS } from '../spec/index.js';
import { validationError, zodIssuesToItems } from './errors/index.js';

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType; options?: z.ZodType[]; shape?: Record<string, z.ZodType> };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** Through optional/nullable/default/... and the input side of pipes, to the schema that parses. */
export function unwrap(s: z.ZodType): z.ZodType {
  let cur = s;
  for (;;) {
    const d = defOf(cur);
    if (WRAPPERS.has(d.type) && d.innerType) cur = d.innerType;
    else if (d.type === 'pipe' && d.in) cur = d.in;
    else return cur;
  }
}

/**
 * The spellings of a boolean the hosted API's framework (pydantic) accepts, in any case:
 * clients that write Python's `str(True)` send `True`.
 */
const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', 'f', 'n']);
export function parseBoolean(raw: string): boolean | undefined {
  const w = raw.toLowerCase();
  return TRUE_WORDS.has(w) ? true : FALSE_WORDS.has(w) ? false : undefined;
}

function coerceScalar(s: z.ZodType, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const d = defOf(unwrap(s));
  switch (d.type) {
    case 'number':
    case 'bigint':
      return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    case 'boolean':
      return parseBoolean(raw) ?? raw;
    case 'union': {
      for (const o of d.options ?? []) {
        const t = defOf(unwrap(o)).type;
        if ((t === 'number' || t === 'bigint') && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
        if (t === 'boolean' && parseBoolean(raw) !== undefined) return parseBoolean(raw);
      }
      return raw;
    }
    default:
      return raw;
  }
}

/** Coerce one raw query value to the shape the schema expects. */
export function coerceValue(schema: z.ZodType, raw: unknown): unknown {
  const inner = unwrap(schema);
  const d = defOf(inner);
  if (d.type === 'array' && d.element) {
    const list = Array.isArray(raw) ? raw : [raw];
    return list.map((x) => coerceScalar(d.element!, x));
  }
  if (d.type === 'union') {
    const arrayOpt = (d.options ?? []).find((o) => defOf(unwrap(o)).type === 'array');
    if (Array.isArray(raw)) return arrayOpt ? coerceValue(arrayOpt, raw) : raw;
    const scalar = (d.options ?? []).filter((o) => defOf(unwrap(o)).type !== 'array');
    if (scalar.length === 0 && arrayOpt) return coerceValue(arrayOpt, raw);
    return coerceScalar(inner, raw);
  }
  return coerceScalar(inner, raw);
}

function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const d = defOf(unwrap(schema));
  return d.type === 'object' ? (d.shape as Record<string, z.ZodType>) : undefined;
}

/**
 * Coerce the raw strings of a query, path or form by the schema's fields. Keys are looked up as
 * own fields only (`constructor`, `__proto__`, `toString` name no field: they are left to zod,
 * which drops unknown keys) and written to a prototype-less object.
 */
export function coerceQuery(schema: z.ZodType, raw: Record<string, unknown>): Record<string, unknown> {
  const shape = shapeOf(schema) ?? {};
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of Object.entries(raw)) {
    // `k[]=a` is a common client spelling of a repeated key
    const key = k.endsWith('[]') ? k.slice(0, -2) : k;
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    out[key] = field ? coerceValue(field, v) : v;
  }
  return out;
}

/** Parse `input` with `schema`, or throw a 422 whose items are located under `location`. */
export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown, location: 'query' | 'path' | 'body'): z.output<T> {
  const r = schema.safeParse(input);
  if (!r.success) throw validationError(zodIssuesToItems(location, r.error.issues, input));
  return r.data;
}

interface Node {
  v: unknown;
  depth: number;
  parent: Node | null;
  key: string | number;
}
const pathOf = (n: Node | null): (string | number)[] => {
  const out: (string | number)[] = [];
  for (let c = n; c && c.parent; c = c.parent) out.push(c.key);
  return out.reverse();
};

/**
 * Refuse input beyond INPUT_LIMITS (spec/common.ts) before zod or a handler walks it: objects
 * and arrays nested deeper than maxDepth, strings or keys longer than maxStringChars. Walks
 * without recursion, so a body nested 100,000 deep is a 422 naming where, not a stack overflow.
 */
export function checkInputLimits(input: unknown, location: 'query' | 'path' | 'body'): void {
  const { maxDepth, maxStringChars } = INPUT_LIMITS;
  const stack: Node[] = [{ v: input, depth: 1, parent: null, key: '' }];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const v = n.v;
    if (typeof v === 'string') {
      if (v.length > maxStringChars) {
        throw validationError([
          { loc: [location, ...pathOf(n)], msg: `longer than ${maxStringChars} characters (${v.length})`, type: 'value_error.any_str.max_length' },
        ]);
      }
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (n.depth > maxDepth) {
      throw validationError([
        { loc: [location, ...pathOf(n)], msg: `nested deeper than ${maxDepth} levels of objects and arrays`, type: 'value_error.max_depth' },
      ]);
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], depth: n.depth + 1, parent: n, key: i });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      if (k.length > maxStringChars) {
        throw validationError([
          { loc: [location, ...pathOf(n)], msg: `has a key longer than ${maxStringChars} characters`, type: 'value_error.any_str.max_length' },
        ]);
      }
      stack.push({ v: (v as Record<string, unknown>)[k], depth: n.depth + 1, parent: n, key: k });
    }
  }
}
