/**
 * A source entry: what the project file's `sources:` list holds per feed or sitemap, and what
 * `newsflow sources add` takes. The one zod schema of it (the project file's schema imports it).
 *
 * - `url`: the feed or sitemap, absolute http(s);
 * - `name`: the source's key (lower-case letters, digits, `.`, `_`, `-`; at most 64), default
 *   derived from the URL (`sourceName`);
 * - `poll_interval`: a fixed interval instead of the adaptive one, `90s`, `15m`, `2h` or seconds,
 *   1 minute to 1 day (the poller's bounds and the source's own hints still apply: see
 *   lib/feeds/interval.ts);
 * - `language`: the language of its items when they do not say (`en`, `pt-BR`);
 * - `tags`: free labels, kept with the source.
 */
import { z } from 'zod';

export const SOURCE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Seconds of a duration: `90s`, `15m`, `2h`, `1d`, or a number of seconds. */
export function durationSeconds(v: string | number): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? Math.round(v) : null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|d)?\s*$/i.exec(v);
  if (!m) return null;
  const unit = { s: 1, sec: 1, m: 60, min: 60, h: 3600, d: 86_400 }[(m[2] ?? 's').toLowerCase() as 's'] ?? 1;
  return Math.round(Number(m[1]) * unit);
}

const isHttp = (s: string) => {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
  } catch {
    return false;
  }
};

export const SourceEntry = z
  .object({
    url: z
      .string()
      .refine(isHttp, { message: 'not an absolute http(s) URL' })
      .meta({ description: 'the feed or sitemap (RSS, Atom, JSON Feed, sitemap, sitemap index)' }),
    name: z
      .string()
      .regex(SOURCE_NAME, 'lower-case letters, digits, ".", "_" and "-", at most 64, starting with a letter or digit')
      .optional()
      .meta({ description: 'the source key; default derived from the URL' }),
    poll_interval: z
      .union([z.string(), z.number()])
      .refine(
        (v) => {
          const s = durationSeconds(v);
          return s !== null && s >= 60 && s <= 86_400;
        },
        { message: 'a duration from 1m to 1d, e.g. 90s, 15m, 2h' },
      )
      .optional()
      .meta({ description: 'fixed poll interval instead of the adaptive one (e.g. 15m)' }),
    language: z
      .string()
      .regex(/^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})*$/, 'a language code such as en or pt-BR')
      .optional()
      .meta({ description: 'language of its items when they do not say' }),
    tags: z.array(z.string().min(1).max(100)).max(50).optional().meta({ description: 'free labels' }),
  })
  .strict()
  .meta({ id: 'SourceEntry', description: 'a feed or sitemap the service is filled from' });
export type SourceEntry = z.infer<typeof SourceEntry>;

/** A source name from its URL: host without www., then the path, as lower-case words joined by `-`. */
export function sourceName(url: string): string {
  const u = new URL(url);
  const words = `${u.hostname.replace(/^www\./, '')} ${u.pathname} ${u.search}`
    .toLowerCase()
    .replace(/\.(xml|rss|atom|rdf|json)\b/g, ' ')
    .split(/[^a-z0-9.]+/)
    .filter((w) => w && w !== 'feed' && w !== 'feeds' && w !== 'rss');
  return (words.join('-').replace(/^[^a-z0-9]+/, '') || 'source').slice(0, 64).replace(/[-.]+$/, '');
}

/** A declared source with its name and interval resolved. */
export interface ResolvedSource {
  source: string;
  url: string;
  pollIntervalS: number | null;
  language: string | null;
  tags: string[];
}

export function resolveSource(e: SourceEntry): ResolvedSource {
  return {
    source: e.name ?? sourceName(e.url),
    url: e.url,
    pollIntervalS: e.poll_interval === undefined ? null : durationSeconds(e.poll_interval),
    language: e.language ?? null,
    tags: e.tags ?? [],
  };
}
