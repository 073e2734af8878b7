/**
 * `newsflow crawl URL...`: index pages on the running service (POST /v1/news/index_urls through
 * the client), wait for the job and print each URL's status as it finishes. The service does the
 * fetching under its fetch policy (NEWSFLOW_FETCH_ALLOW), so crawl follows the same rules as any
 * index_urls request, and the pages land in the news index and the web search index.
 */
import { ApiError, NetworkError, NewsClient } from '../../client/index.js';

export interface CrawlOptions {
  urls: string[];
  /** the window pub_date is bounded to (index_urls start_time / end_time) */
  start: string;
  end: string;
  skipDedupe?: boolean;
  wait?: boolean;
  json?: boolean;
  baseUrl?: string;
  apiKey?: string;
  timeoutMs?: number;
}

export class CrawlError extends Error {}

/** Returns the job's final status (or `queued` without waiting). */
export async function crawl(o: CrawlOptions, out: (s: string) => void = (s) => process.stdout.write(s)): Promise<string> {
  const client = new NewsClient({ baseUrl: o.baseUrl, apiKey: o.apiKey, validate: 'off' });
  const body = { start_time: o.start, end_time: o.end, urls: o.urls.map((url) => ({ url, skip_dedupe: !!o.skipDedupe })) };
  try {
    if (!o.wait) {
      const r = await client.indexUrls(body);
      out(o.json ? `${JSON.stringify(r)}\n` : `job ${r.job_id}: ${r.status}; ${r.message ?? ''}\n`);
      return r.status;
    }
    const printed = new Set<number>();
    const job = await client.indexUrlsAndWait(body, {
      timeoutMs: o.timeoutMs,
      onProgress: (j) => {
        if (o.json) return;
        if (printed.size === 0 && !printed.has(-1)) {
          printed.add(-1);
          out(`job ${j.job_id}: ${j.urls.length} URL${j.urls.length === 1 ? '' : 's'}\n`);
        }
        j.urls.forEach((u, i) => {
          if (printed.has(i) || u.status === 'queued' || u.status === 'running') return;
          printed.add(i);
          // a detail names its category first (`forbidden_address: ...`): the reason is printed once
          const failure = u.detail?.startsWith(`${u.reason}:`) ? u.detail : `${u.reason ?? ''}${u.detail ? `: ${u.detail}` : ''}`;
          const what = u.status === 'indexed' ? `${u.title ?? ''} (article ${u.article_id})` : failure;
          out(`${u.status.padEnd(8)} ${u.url}  ${what}\n`);
        });
      },
    });
    out(
      o.json
        ? `${JSON.stringify(job)}\n`
        : `job ${job.job_id}: ${job.finished_at ? job.status : `${job.status} (still running; stopped waiting)`}; ${job.message}\n`,
    );
    return job.status;
  } catch (e) {
    if (e instanceof ApiError || e instanceof NetworkError) throw new CrawlError(e.message);
    throw e;
  } finally {
    await client.close();
  }
}
