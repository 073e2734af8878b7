/**
 * What `newsflow sources add|list|remove|test` does: sources managed at run time live in the
 * warehouse's `sources` table with origin `cli` (the project file's come from its `sources:` list,
 * origin `file`: pipelines/schedules/feeds.ts); `test` fetches a feed once, as the poller would, and
 * tells what it would index, without the warehouse or the API.
 */
import { PageFetcher } from '../../lib/fetch/fetcher.js';
import type { FetchPolicy } from '../../lib/fetch/policy.js';
import { HostGate } from '../../lib/feeds/host-gate.js';
import { pollFeed, robotsThrough, type FeedPoll } from '../../lib/feeds/poll.js';
import { SourceEntry, resolveSource } from '../../lib/feeds/source.js';
import { openReader } from '../../warehouse/read.js';
import { currentProject, lakeOf } from '../config/current.js';
import { UserError } from '../../lib/errors.js';

/** Add (or update) a source of origin `cli`. */
export async function addSource(warehouseDir: string, entry: unknown): Promise<{ source: string; added: boolean }> {
  const parsed = SourceEntry.safeParse(entry);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new UserError(`${i.path.join('.') || 'source'}: ${i.message}`);
  }
  const decl = resolveSource(parsed.data);
  const { Warehouse } = await import('../../warehouse/warehouse.js');
  const { SourceStore } = await import('../../warehouse/sources.js');
  const wh = await Warehouse.open(warehouseDir, lakeOf(currentProject() ?? { lake: {} }));
  try {
    const r = await new SourceStore(wh).declare([decl], 'cli', Date.now());
    if (r.taken.length) throw new UserError(`source "${decl.source}" is declared in the project file; change it there, or add this one with another --name`);
    return { source: decl.source, added: r.added.length > 0 };
  } finally {
    wh.close();
  }
}

/** Remove a source of origin `cli`. */
export async function removeSource(warehouseDir: string, name: string): Promise<void> {
  const { Warehouse } = await import('../../warehouse/warehouse.js');
  const { SourceStore } = await import('../../warehouse/sources.js');
  const wh = await Warehouse.open(warehouseDir, lakeOf(currentProject() ?? { lake: {} }));
  try {
    const store = new SourceStore(wh);
    const [row] = await store.get([name]);
    if (!row) throw new UserError(`no source "${name}" (newsflow sources list shows them)`);
    if (row.origin === 'file') throw new UserError(`source "${name}" is declared in the project file; remove it there`);
    await store.remove(name);
  } finally {
    wh.close();
  }
}

const ago = (t: unknown, now: number) => {
  if (t == null) return '';
  const s = Math.round((now - new Date(t as string | Date).getTime()) / 1000);
  const a = Math.abs(s);
  const v = a < 120 ? `${a}s` : a < 7200 ? `${Math.round(a / 60)}m` : a < 172_800 ? `${Math.round(a / 3600)}h` : `${Math.round(a / 86_400)}d`;
  return s >= 0 ? `${v} ago` : `in ${v}`;
};

/** The sources with their health at a glance (read-only: safe while the poller lands). */
export async function listSources(warehouseDir: string, now = Date.now()): Promise<Record<string, unknown>[]> {
  const r = await openReader(warehouseDir, { lake: lakeOf(currentProject() ?? { lake: {} }) });
  try {
    const rows =
      await r.all(`SELECT source, status, kind, origin, url, last_success_at, failures_in_row, items_per_day, items_seen, interval_s, next_poll_at, last_error
      FROM sources ORDER BY status = 'ok', source`);
    return rows.map((x) => ({
      source: x.source,
      status: x.status,
      kind: x.kind ?? '',
      origin: x.origin,
      last_success: ago(x.last_success_at, now),
      fails: Number(x.failures_in_row ?? 0),
      per_day: x.items_per_day == null ? '' : Number(x.items_per_day).toFixed(1),
      seen: Number(x.items_seen ?? 0),
      every: x.interval_s == null ? '' : `${Math.round(Number(x.interval_s) / 60)}m`,
      next_poll: ago(x.next_poll_at, now),
      url: x.url,
      last_error: String(x.last_error ?? '').slice(0, 80),
    }));
  } finally {
    r.close();
  }
}

/** Fetch feeds once each as the poller would (robots.txt, politeness, the fetch policy, parsing), in order. */
export async function* testSources(urls: string[], o: { delayMs?: number; policy?: FetchPolicy } = {}): AsyncGenerator<{ url: string; poll: FeedPoll }> {
  const fetcher = new PageFetcher({ policy: o.policy });
  try {
    const gate = new HostGate({ delayMs: o.delayMs });
    const robots = robotsThrough(fetcher, gate);
    for (const url of urls) yield { url, poll: await pollFeed({ url }, { fetcher, gate, robots }) };
  } finally {
    await fetcher.destroy();
  }
}

/** The lines `sources test` prints for a poll: the feed, then each item it would index. */
export function describePoll(url: string, p: FeedPoll): string[] {
  if (!p.feed) return [`${url}: ${p.status}${p.reason ? ` (${p.reason})` : ''}${p.error ? `: ${p.error}` : ''}`];
  const f = p.feed;
  const withUrl = f.items.filter((i) => i.url);
  const head = `${url}: ${f.kind}${f.title ? ` "${f.title}"` : ''}, ${f.charset} (${f.charsetSource}), HTTP ${p.httpStatus}, ${p.bytes} bytes; would index ${withUrl.length} item${withUrl.length === 1 ? '' : 's'}`;
  const lines = [head];
  if (f.kind === 'sitemapindex') lines.push(`  ${f.sitemaps.length} sitemaps${p.error ? `; ${p.error}` : ''}`);
  for (const i of withUrl) lines.push(`  ${(i.published ?? '').slice(0, 16).padEnd(16)}  ${i.title || '(no title)'}  ${i.url}`);
  const without = f.items.length - withUrl.length;
  if (without) lines.push(`  (${without} item${without === 1 ? '' : 's'} without a link left out)`);
  return lines;
}
