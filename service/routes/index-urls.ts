/** POST /v1/news/index_urls (spec/news.ts) and GET /v1/news/index_urls/{job_id} (extension). */
import { ERROR_CODES } from '../../spec/index.js';
import type { GroupHandlers, RequestCtx } from '../context.js';
import { HttpError, notFound, validationError } from '../errors/index.js';
import { TooManyJobs, countsOf, finalStatus, jobMessage, ownerOf } from '../indexing/runner.js';

const web = (ctx: RequestCtx) => {
  const w = ctx.services.web;
  if (!w) throw new HttpError(503, ERROR_CODES.unavailable, 'URL indexing is not available on this server (no news store)');
  return w;
};

export const indexUrlsHandlers: GroupHandlers = {
  index_urls: async (ctx) => {
    const body = ctx.body;
    const p = ctx.principal!;
    const w = web(ctx);
    // this server's own cap (NEWSFLOW_INDEX_MAX_URLS), at most the schema's
    const max = w.config.maxUrls;
    if (body.urls.length > max)
      throw validationError([
        { loc: ['body', 'urls'], msg: `urls: at most ${max} items allowed on this server (NEWSFLOW_INDEX_MAX_URLS)`, type: 'value_error.list.max_items' },
      ]);
    let job;
    try {
      job = await w.indexer.submit(ownerOf(p), p.keyId, body);
    } catch (e) {
      if (e instanceof TooManyJobs) throw new HttpError(429, ERROR_CODES.concurrencyLimited, e.message, { 'Retry-After': '5' });
      throw e;
    }
    const n = body.urls.length;
    return {
      status: job.status,
      job_id: job.jobId,
      message: `${n} URL${n === 1 ? '' : 's'} queued for indexing; GET /v1/news/index_urls/${job.jobId} reports each URL`,
      indexed_count: 0,
    };
  },

  get_index_urls_job: async (ctx) => {
    const id = ctx.params.job_id.toLowerCase();
    const w = web(ctx);
    const job = await w.indexer.jobs.job(id);
    // another owner's job is not there for this key
    if (!job || job.owner !== ownerOf(ctx.principal!)) throw notFound(`no URL indexing job ${id}`);
    const items = await w.indexer.jobs.items(id);
    const counts = countsOf(items);
    const finished = job.finishedAt !== null;
    return {
      job_id: job.jobId,
      status: finished ? finalStatus(counts) : job.status,
      message: jobMessage(counts),
      indexed_count: counts.indexed ?? 0,
      counts,
      start_time: job.startTime.toISOString(),
      end_time: job.endTime.toISOString(),
      created_at: job.createdAt.toISOString(),
      updated_at: new Date(Math.max(job.updatedAt.getTime(), ...items.map((i) => i.updatedAt.getTime()))).toISOString(),
      finished_at: job.finishedAt?.toISOString() ?? null,
      urls: items.map((i) => ({
        url: i.url,
        status: i.status,
        reason: i.reason,
        detail: i.detail,
        final_url: i.finalUrl,
        canonical_url: i.canonicalUrl,
        http_status: i.httpStatus,
        title: i.title,
        article_id: i.articleId,
        updated_at: i.updatedAt.toISOString(),
      })),
    };
  },
};
