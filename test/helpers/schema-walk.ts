/**
 * Walks the zod schemas of spec/ so fidelity tests cover every route's parameters without
 * hand-listing them: the fields of a route's query, path or body, and what a field accepts.
 */
import type { z } from 'zod';
import { ROUTES, type RouteDef } from '../../spec/index.js';
import { unwrap } from '../../service/validation.js';

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  shape?: Record<string, z.ZodType>;
  format?: string;
  checks?: { _zod: { def: { check?: string; format?: string } } }[];
};
export const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
/** The validator's own unwrapping, so the tests walk schemas exactly as requests are parsed. */
export { unwrap };

/** The fields of an object schema (empty for anything else). */
export function fieldsOf(schema: z.ZodType | undefined): [string, z.ZodType][] {
  if (!schema) return [];
  const d = defOf(unwrap(schema));
  return d.type === 'object' ? Object.entries(d.shape ?? {}) : [];
}

/** The scalar schemas a field may hold: itself, its array element, its union options. */
export function scalarsOf(s: z.ZodType): z.ZodType[] {
  const u = unwrap(s);
  const d = defOf(u);
  if (d.type === 'array' && d.element) return scalarsOf(d.element);
  if (d.type === 'union' && d.options) return d.options.flatMap(scalarsOf);
  return [u];
}

const formatOf = (s: z.ZodType): string | undefined => {
  const d = defOf(s);
  return d.format ?? d.checks?.map((c) => c._zod.def.format).find(Boolean);
};
export const isBoolean = (s: z.ZodType) => scalarsOf(s).some((x) => defOf(x).type === 'boolean');
export const isDateTime = (s: z.ZodType) => scalarsOf(s).some((x) => formatOf(x) === 'datetime');
export const isUuid = (s: z.ZodType) => scalarsOf(s).some((x) => ['uuid', 'guid'].includes(formatOf(x) ?? ''));
export const isInteger = (s: z.ZodType) => scalarsOf(s).some((x) => defOf(x).type === 'number' && (formatOf(x) === 'safeint' || formatOf(x) === 'int32'));

export interface Field {
  route: RouteDef;
  where: 'query' | 'path' | 'body';
  name: string;
  schema: z.ZodType;
}
/** Every top-level field of every route's query, path and body. */
export function routeFields(): Field[] {
  return ROUTES.flatMap((route) => [
    ...fieldsOf(route.query).map(([name, schema]) => ({ route, where: 'query' as const, name, schema })),
    ...fieldsOf(route.params).map(([name, schema]) => ({ route, where: 'path' as const, name, schema })),
    ...fieldsOf(route.body).map(([name, schema]) => ({ route, where: 'body' as const, name, schema })),
  ]);
}

/** A route's path with every `{param}` filled in (a well-formed value for each). */
export function fillPath(route: RouteDef, values: Record<string, string> = {}): string {
  return route.path.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name] ?? DEFAULT_PATH_VALUES[name] ?? 'x');
}
const DEFAULT_PATH_VALUES: Record<string, string> = {
  article_id: '6f1e2d3c-4b5a-4968-8776-655443322110',
  alert_id: '6f1e2d3c-4b5a-4968-8776-655443322110',
  story_id: '6f1e2d3c-4b5a-4968-8776-655443322110',
  provider: 'anthropic',
  name: 'example.com',
};

/** Keys for every route: one enterprise organization key with every scope. */
export const ALL_LIMITS = 'news=1000:1000:50,stories=1000:1000:50,chat=1000:1000:50,deepnews=1000:1000:50,distribution=1000:1000:50,profile=1000:1000:50';
