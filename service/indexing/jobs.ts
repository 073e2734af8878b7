/** URL indexing jobs and their URLs in the store (`url_jobs`, `url_job_items`). */
import type { Db } from '../store/db.js';
import type { INDEX_URL_JOB_STATUSES, INDEX_URL_STATUSES } from '../../spec/index.js';

export type JobStatus = (typeof INDEX_URL_JOB_STATUSES)[number];
export type ItemStatus = (typeof INDEX_URL_STATUSES)[number];

export interface Job {
  jobId: string;
  owner: string;
  keyId: string | null;
  status: JobStatus;
  startTime: Date;
  endTime: Date;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export interface JobItem {
  jobId: string;
  seq: number;
  url: string;
  skipDedupe: boolean;
  data: unknown;
  metadata: Record<string, unknown> | null;
  enrichments: Record<string, unknown> | null;
  status: ItemStatus;
  reason: string | null;
  detail: string | null;
  finalUrl: string | null;
  canonicalUrl: string | null;
  httpStatus: number | null;
  title: string | null;
  articleId: string | null;
  updatedAt: Date;
}

/** What a finished URL records. */
export type ItemOutcome = Pick<JobItem, 'status' | 'reason' | 'detail' | 'finalUrl' | 'canonicalUrl' | 'httpStatus' | 'title' | 'articleId'>;

type Row = Record<string, unknown>;
const ms = (v: unknown) => new Date(Number(v));
const parse = (v: unknown) => (v == null ? null : (JSON.parse(String(v)) as Record<string, unknown>));

const JOB_COLS = `job_id::VARCHAR AS job_id, owner, key_id, status, epoch_ms(start_time) AS start_ms, epoch_ms(end_time) AS end_ms,
  epoch_ms(created_at) AS created_ms, epoch_ms(updated_at) AS updated_ms, epoch_ms(finished_at) AS finished_ms`;
const jobFrom = (r: Row): Job => ({
  jobId: String(r.job_id),
  owner: String(r.owner),
  keyId: (r.key_id as string | null) ?? null,
  status: r.status as JobStatus,
  startTime: ms(r.start_ms),
  endTime: ms(r.end_ms),
  createdAt: ms(r.created_ms),
  updatedAt: ms(r.updated_ms),
  finishedAt: r.finished_ms == null ? null : ms(r.finished_ms),
});

const ITEM_COLS = `job_id::VARCHAR AS job_id, seq, url, skip_dedupe, data::VARCHAR AS data, metadata::VARCHAR AS metadata,
  enrichments::VARCHAR AS enrichments, status, reason, detail, final_url, canonical_url, http_status, title,
  article_id::VARCHAR AS article_id, epoch_ms(updated_at) AS updated_ms`;
const itemFrom = (r: Row): JobItem => ({
  jobId: String(r.job_id),
  seq: Number(r.seq),
  url: String(r.url),
  skipDedupe: !!r.skip_dedupe,
  data: parse(r.data),
  metadata: parse(r.metadata),
  enrichments: parse(r.enrichments),
  status: r.status as ItemStatus,
  reason: (r.reason as string | null) ?? null,
  detail: (r.detail as string | null) ?? null,
  finalUrl: (r.final_url as string | null) ?? null,
  canonicalUrl: (r.canonical_url as string | null) ?? null,
  httpStatus: r.http_status == null ? null : Number(r.http_status),
  title: (r.title as string | null) ?? null,
  articleId: (r.article_id as string | null) ?? null,
  updatedAt: ms(r.updated_ms),
});

const micros = (d: Date) => d.getTime() * 1000;
const json = (v: unknown) => (v == null ? null : JSON.stringify(v));

export class JobStore {
  constructor(readonly db: Db) {}

  /** A new job and its URLs (status queued), in one transaction. */
  async create(
    job: Pick<Job, 'jobId' | 'owner' | 'keyId' | 'startTime' | 'endTime'>,
    urls: Pick<JobItem, 'url' | 'skipDedupe' | 'data' | 'metadata' | 'enrichments'>[],
    now: Date,
  ): Promise<void> {
    await this.db.tx(async (q) => {
      await q.run(
        `INSERT INTO url_jobs VALUES ($1::UUID, $2, $3, 'queued', make_timestamp($4::BIGINT), make_timestamp($5::BIGINT), make_timestamp($6::BIGINT), make_timestamp($6::BIGINT), NULL)`,
        [job.jobId, job.owner, job.keyId, micros(job.startTime), micros(job.endTime), micros(now)] as never,
      );
      for (const [seq, u] of urls.entries()) {
        await q.run(
          `INSERT INTO url_job_items (job_id, seq, url, skip_dedupe, data, metadata, enrichments, status, updated_at)
           VALUES ($1::UUID, $2, $3, $4, $5::JSON, $6::JSON, $7::JSON, 'queued', make_timestamp($8::BIGINT))`,
          [job.jobId, seq, u.url, u.skipDedupe, json(u.data), json(u.metadata), json(u.enrichments), micros(now)] as never,
        );
      }
    });
  }

  async job(jobId: string): Promise<Job | undefined> {
    const r = await this.db.one<Row>(`SELECT ${JOB_COLS} FROM url_jobs WHERE job_id = $1::UUID`, [jobId]);
    return r ? jobFrom(r) : undefined;
  }

  async items(jobId: string): Promise<JobItem[]> {
    return (await this.db.all<Row>(`SELECT ${ITEM_COLS} FROM url_job_items WHERE job_id = $1::UUID ORDER BY seq`, [jobId])).map(itemFrom);
  }

  /** Jobs not finished (queued or running), oldest first. */
  async unfinished(): Promise<Job[]> {
    return (await this.db.all<Row>(`SELECT ${JOB_COLS} FROM url_jobs WHERE status IN ('queued', 'running') ORDER BY created_at, job_id`)).map(jobFrom);
  }

  async setJobStatus(jobId: string, status: JobStatus, now: Date, finished: boolean): Promise<void> {
    await this.db.run(
      `UPDATE url_jobs SET status = $2, updated_at = make_timestamp($3::BIGINT), finished_at = CASE WHEN $4 THEN make_timestamp($3::BIGINT) ELSE NULL END WHERE job_id = $1::UUID`,
      [jobId, status, micros(now), finished] as never,
    );
  }

  async setRunning(jobId: string, seq: number, now: Date): Promise<void> {
    await this.db.run(`UPDATE url_job_items SET status = 'running', updated_at = make_timestamp($3::BIGINT) WHERE job_id = $1::UUID AND seq = $2`, [
      jobId,
      seq,
      micros(now),
    ] as never);
  }

  async finishItem(jobId: string, seq: number, o: ItemOutcome, now: Date): Promise<void> {
    await this.db.run(
      `UPDATE url_job_items SET status = $3, reason = $4, detail = $5, final_url = $6, canonical_url = $7, http_status = $8, title = $9,
         article_id = $10::UUID, updated_at = make_timestamp($11::BIGINT) WHERE job_id = $1::UUID AND seq = $2`,
      [jobId, seq, o.status, o.reason, o.detail, o.finalUrl, o.canonicalUrl, o.httpStatus, o.title, o.articleId, micros(now)] as never,
    );
  }

  /**
   * The article stored under a URL that `owner` sees (the shared corpus's, or its own: the newest
   * if several), with the job that indexed it when URL indexing did.
   */
  async articleByUrl(url: string, owner: string): Promise<{ articleId: string; jobId: string | null } | undefined> {
    const r = await this.db.one<{ id: string; job: string | null }>(
      `SELECT a.article_id::VARCHAR AS id, w.job_id::VARCHAR AS job FROM articles a LEFT JOIN web_pages w ON w.article_id = a.article_id
       WHERE a.article_url = $1 AND (a.owner IS NULL OR a.owner = $2) ORDER BY a.crawl_date DESC NULLS LAST LIMIT 1`,
      [url, owner],
    );
    return r ? { articleId: r.id, jobId: r.job } : undefined;
  }
}
