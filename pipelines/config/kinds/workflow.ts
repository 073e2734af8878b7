/** workflow: a workflow of your own pipelines module (the project file's `workflows:`), on a schedule. */
import { z } from 'zod';
import { KIND_SPECS } from '../../../workflows/kinds.js';
import { TASK_QUEUES } from '../../../workflows/queues.js';
import { kindBase } from '../fields.js';
import { defineKind } from './define.js';

export const WorkflowPipeline = z
  .strictObject({
    ...kindBase,
    kind: z.literal('workflow'),
    workflow: z
      .string()
      .regex(/^[A-Za-z_$][\w$]*$/, 'the name of a workflow function your workflows module exports')
      .describe('a workflow of your own (the module `workflows:` names) to run on the schedule'),
    input: z.record(z.string(), z.unknown()).default({}).describe('its argument, an object (`pipeline` is set to the pipeline name)'),
    queue: z
      .enum(['news', 'stories', 'distribution', 'alerts', 'research'])
      .default('news')
      .describe("the task queue it runs on: whose rate limits its activities (and newsflow's it calls) share"),
  })
  .describe('workflow: a workflow of your own pipelines module (see examples/custom-pipeline)');

export const workflow = defineKind({
  ...KIND_SPECS.workflow,
  config: WorkflowPipeline,
  runs: (p) => [{ args: { ...p.input, pipeline: p.name }, what: `your workflow ${p.workflow}`, workflowType: p.workflow, taskQueue: TASK_QUEUES[p.queue] }],
});
