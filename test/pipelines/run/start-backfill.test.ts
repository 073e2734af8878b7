/** The first start of a warehouse backfills the last 7 days of each news pipeline once; its `_loads` row is the marker later starts find. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { Warehouse } from '../../../warehouse/warehouse.js';
import { BACKFILL_DAYS, startBackfill } from '../../../pipelines/run/main-job.js';
import type { Pipeline } from '../../../pipelines/config/index.js';
import { waitUntil } from '../../helpers/wait-until.js';

const PIPELINES: Pipeline[] = [
  { name: 'ukraine', kind: 'news', query: 'Ukraine', window: '1h', page_size: 100 },
  { name: 'covid', kind: 'news', query: 'covid', filters: { languages: ['en'] }, window: '1h', page_size: 50 },
  { name: 'alerts', kind: 'alerts', sync: true },
];

function recordingClient() {
  const started: { type: string; id: string; args: { from: string; to: string; pipeline: string; query: string; pageSize: number }[] }[] = [];
  const client = {
    workflow: {
      start: async (type: string, o: { workflowId: string; args: { from: string; to: string; pipeline: string; query: string; pageSize: number }[] }) =>
        void started.push({ type, id: o.workflowId, args: o.args }),
    },
  };
  return { client: client as unknown as Client, started };
}

describe('the start backfill', () => {
  it('starts a 7-day news ingest per news pipeline on a warehouse without the marker, and not again once its load is in _loads', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-backfill-'));
    const wh = await Warehouse.open(dir);
    try {
      const first = recordingClient();
      expect(await startBackfill(first.client, wh, undefined, PIPELINES)).toMatch(/the last 7 days of ukraine, covid/);
      expect(first.started.map((s) => [s.id, s.args[0]!.pipeline, s.args[0]!.query, s.args[0]!.pageSize])).toEqual([
        ['newsflow-backfill-ukraine', 'ukraine', 'Ukraine', 100],
        ['newsflow-backfill-covid', 'covid', 'covid', 50],
      ]);
      const { type, id, args } = first.started[0]!;
      expect(type).toBe('newsIngest');
      const span = Date.parse(args[0]!.to) - Date.parse(args[0]!.from);
      expect(span).toBe(BACKFILL_DAYS * 86_400_000);
      // the backfill's load lands: the marker
      await wh.recordLoad(
        {
          loadId: `${id}/run-1`,
          pipeline: 'news',
          kind: 'news',
          workflowId: id,
          runId: 'run-1',
          windowStart: new Date(args[0]!.from),
          windowEnd: new Date(args[0]!.to),
        },
        { received: 3, inserted: 3, updated: 0 },
        new Date(),
      );
      // the next start backfills only the pipeline whose backfill has not landed
      const later = recordingClient();
      await startBackfill(later.client, wh, undefined, PIPELINES);
      expect(later.started.map((s) => s.id)).toEqual(['newsflow-backfill-covid']);
      console.log(`backfill started once (${id}, ${span / 86_400_000} days), skipped on the next start`);
    } finally {
      wh.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('waits for the history to be loaded before it starts', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-backfill-'));
    const wh = await Warehouse.open(dir);
    try {
      const c = recordingClient();
      let loaded!: () => void;
      const history = new Promise<void>((r) => (loaded = r));
      expect(await startBackfill(c.client, wh, history, PIPELINES)).toMatch(/as soon as those days are loaded/);
      expect(c.started).toHaveLength(0);
      loaded();
      await waitUntil(() => c.started.length === 2, { what: 'both backfills started' });
    } finally {
      wh.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
