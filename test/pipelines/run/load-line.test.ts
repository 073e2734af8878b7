/** The terminal line `newsflow start` prints per finished load: rows for a pipeline, live files for lake maintenance. */
import { describe, expect, it } from 'vitest';
import { loadLine } from '../../../pipelines/run/main-job.js';

describe('the load line of newsflow start', () => {
  it('counts rows for a pipeline and live files for maintenance', () => {
    const row = { load_id: 'l', pipeline: 'ukraine', kind: 'news', workflow_id: 'ukraine-run-1', rows_received: 40n, rows_inserted: 12n };
    expect(loadLine(row, '3.2 s')).toBe('load ukraine: 40 rows received, 12 new (ukraine-run-1; 3.2 s after start)');
    expect(loadLine({ ...row, pipeline: 'maintenance', kind: 'maintenance', workflow_id: 'm-1', rows_received: 120n, rows_inserted: 14n }, '35.7 s')).toBe(
      'load maintenance: lake maintenance, 120 live data files before, 14 after (m-1; 35.7 s after start)',
    );
  });
});
