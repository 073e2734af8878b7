/**
 * A distributionPull run started before the 'walk-windows' patch (one activity per page, then one
 * per stat, then recordWindowLoad) still replays with the current workflow code: a worker that
 * picks such a run up mid-flight takes the old path instead of failing it as nondeterministic.
 * The history was recorded from the workflow code before the patch (2 month windows, 40 a page).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import protoPkg from '@temporalio/proto';
import { repoRoot } from '../helpers/paths.js';

const require = createRequire(import.meta.url);
const { temporal } = protoPkg as unknown as typeof import('@temporalio/proto');

describe('distributionPull across the walk-windows patch', () => {
  it('replays a history recorded before the patch without a nondeterminism error', async () => {
    const json = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'workflows', 'distribution-pull-before-walk-windows.json'), 'utf8'));
    const history = temporal.api.history.v1.History.fromObject(json);
    const scheduled = history.events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
    );
    expect(scheduled).toContain('pullTopNPage');
    expect(scheduled).not.toContain('walkDistribution');
    await Worker.runReplayHistory({ workflowsPath: require.resolve('../../workflows/index.ts') }, history, 'dist-before-walk-windows');
  }, 120_000);
});
