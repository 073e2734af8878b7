/**
 * The mix of bench/mix.ts (20 connections, kw / nl / lookup, query cache on) under four embedding
 * set-ups back to back, then again in reverse order: the embedding thread on / off
 * (NEWSFLOW_EMBED_THREAD) x onnxruntime's intra-op threads 1 / 2 (NEWSFLOW_EMBED_OP_THREADS).
 * One JSON line per run, with the 1-minute load average at its start.
 */
import os from 'node:os';
import { runMix } from './mix.js';

const SETUPS = [
  { thread: '0', op: '2' },
  { thread: '0', op: '1' },
  { thread: '1', op: '2' },
  { thread: '1', op: '1' },
];
for (const s of [...SETUPS, ...[...SETUPS].reverse()]) {
  const load_average = Number(os.loadavg()[0]!.toFixed(2));
  const r = await runMix({ NEWSFLOW_EMBED_THREAD: s.thread, NEWSFLOW_EMBED_OP_THREADS: s.op });
  console.log(JSON.stringify({ embed_thread: s.thread === '1', op_threads: Number(s.op), load_average, ...r }));
}
