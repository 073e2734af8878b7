/** The 35 Readability test pages of the shared folder, their expectations, and text scoring. */
import fs from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import type { z } from 'zod';
import type { IndexUrlsJob } from '../../spec/index.js';
import { sharedDir } from './paths.js';
import { waitUntil } from './wait-until.js';
import { html, type PageServer } from './page-server.js';

export const pagesDir = path.join(sharedDir, 'data/html/readability');
export const pageNames = fs
  .readdirSync(pagesDir)
  .filter((n) => fs.existsSync(path.join(pagesDir, n, 'source.html')))
  .sort();

export interface ExpectedMeta {
  title: string | null;
  byline: string | null;
  publishedTime: string | null;
  readerable: boolean;
}

export const expectedMeta = (name: string) => JSON.parse(fs.readFileSync(path.join(pagesDir, name, 'expected-metadata.json'), 'utf8')) as ExpectedMeta;

export function expectedText(name: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${fs.readFileSync(path.join(pagesDir, name, 'expected.html'), 'utf8')}</body></html>`);
  return document.body.textContent ?? '';
}

/** Serve every page at /<name>/ (optionally after `delayMs`); returns the URLs by name. */
export function servePages(server: PageServer, delayMs = 0): Map<string, string> {
  const urls = new Map<string, string>();
  for (const n of pageNames) {
    const h = html(fs.readFileSync(path.join(pagesDir, n, 'source.html')));
    server.routes.set(`/${n}/`, delayMs ? (req, res) => void setTimeout(() => h(req, res), delayMs) : h);
    urls.set(n, `${server.origin}/${n}/`);
  }
  return urls;
}

export const norm = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
export const tokens = (s: string) => s.toLowerCase().match(/\p{L}+|\p{N}+/gu) ?? [];

/** Token F1 (bag of words) between two texts. */
export function tokenF1(ours: string, expected: string): number {
  const a = tokens(ours);
  const b = tokens(expected);
  if (!a.length || !b.length) return 0;
  const counts = new Map<string, number>();
  for (const t of b) counts.set(t, (counts.get(t) ?? 0) + 1);
  let overlap = 0;
  for (const t of a) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      overlap++;
      counts.set(t, c - 1);
    }
  }
  const p = overlap / a.length;
  const r = overlap / b.length;
  return p + r ? (2 * p * r) / (p + r) : 0;
}

/** Whether every name is made of words of the byline, in order. */
export function namesFromByline(names: string[], byline: string): boolean {
  const b = ` ${tokens(byline).join(' ')} `;
  return names.length > 0 && names.every((a) => b.includes(` ${tokens(a).join(' ')} `));
}

/** An index_urls job's view (spec/news.ts `IndexUrlsJob`). */
export type IndexUrlsJobView = z.infer<typeof IndexUrlsJob>;

/** Wait until a job is finished; returns its view. A view that is not 200 fails at once. */
export async function waitForJob(get: () => Promise<{ status: number; body: IndexUrlsJobView }>, timeoutMs = 180_000): Promise<IndexUrlsJobView> {
  const seen = await waitUntil(
    async () => {
      const r = await get();
      if (r.status !== 200) return { refused: new Error(`job view answered ${r.status}: ${JSON.stringify(r.body)}`) };
      return r.body.finished_at ? { view: r.body } : false;
    },
    { what: 'the job finished', timeoutMs, intervalMs: 250 },
  );
  if ('refused' in seen) throw seen.refused;
  return seen.view;
}
