/** NEWSFLOW_RESEARCH: standing questions as schedules, daily at 06:00 UTC unless one gives a cron; bad entries are left out with a warning. */
import { describe, expect, it, vi } from 'vitest';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { researchFromEnv, researchSchedules } from '../../../pipelines/schedules/index.js';
import { scheduledNeeds } from '../../../pipelines/run/preflight.js';

describe('research schedules', () => {
  it('one deepResearch schedule per standing question on the research queue, daily at 06:00 UTC by default', () => {
    const decls = researchSchedules(
      researchFromEnv({
        NEWSFLOW_RESEARCH: JSON.stringify([
          { name: 'ukraine', question: 'What changed in the war in Ukraine?', depth: 3, sources: ['asknews'] },
          { name: 'rates', question: 'Where are interest rates heading?', cron: '30 7 * * 1' },
        ]),
      }),
    );
    expect(decls.map((d) => [d.id, d.workflowType, d.taskQueue, d.spec.cronExpressions, d.overlap])).toEqual([
      ['research-ukraine', 'deepResearch', 'newsflow-research', ['0 6 * * *'], ScheduleOverlapPolicy.SKIP],
      ['research-rates', 'deepResearch', 'newsflow-research', ['30 7 * * 1'], ScheduleOverlapPolicy.SKIP],
    ]);
    expect(decls[0]!.args).toEqual([{ name: 'ukraine', question: 'What changed in the war in Ukraine?', depth: 3, sources: ['asknews'] }]);
    expect(scheduledNeeds(decls)).toEqual([{ pipeline: 'research' }]);
  });

  it('unset or empty declares none; not JSON, not an array, or a bad entry is left out with a warning naming the problem', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(researchSchedules(researchFromEnv({}))).toEqual([]);
      expect(researchSchedules(researchFromEnv({ NEWSFLOW_RESEARCH: '' }))).toEqual([]);
      expect(researchSchedules(researchFromEnv({ NEWSFLOW_RESEARCH: '{nope' }))).toEqual([]);
      expect(researchSchedules(researchFromEnv({ NEWSFLOW_RESEARCH: '{"name":"x"}' }))).toEqual([]);
      const mixed = researchSchedules(
        researchFromEnv({
          NEWSFLOW_RESEARCH: JSON.stringify([
            { name: 'Bad Name', question: 'q' },
            { name: 'ok', question: 'fine?' },
            { name: 'ok', question: 'twice' },
            { name: 'noq' },
            { name: 'deep', question: 'q', depth: 500 },
            { name: 'cron', question: 'q', cron: 'daily' },
          ]),
        }),
      );
      expect(mixed.map((d) => d.id)).toEqual(['research-ok']);
      const lines = warn.mock.calls.map((c) => String(c[0])).join('\n');
      for (const m of [
        'not JSON',
        'must be a JSON array',
        '"name" must be lower-case',
        'declared twice',
        '"question" must be',
        '"depth" must be an integer 1..190',
        '"cron" must be a 5-field',
      ])
        expect(lines).toContain(m);
    } finally {
      warn.mockRestore();
    }
  });
});
