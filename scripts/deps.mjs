// `npm run deps` (part of `npm run lint`): the dependency rules of .dependency-cruiser.cjs over the
// tree, with a list of known violations, .dependency-cruiser-known-violations.json (dependency-cruiser's
// baseline format), that shrinks and never grows:
// - a violation not in the list fails, with its rule and its arrow;
// - a known violation that is gone fails too, until it is taken out of the list (`npm run deps --
//   --prune-known` takes out every gone one and nothing else), so that it cannot come back;
// - the known ones still there are printed, one line each, with the count of each rule.
// dependency-cruiser's own --ignore-known does not soften folder-level rules (no-folder-cycles,
// no-arrow-up) in 17.x, hence this comparison here, with its notion of the same violation
// (rule, from, to; a cycle by its members).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KNOWN = '.dependency-cruiser-known-violations.json';
const DIRS = ['lib', 'spec', 'client', 'service', 'activities', 'workflows', 'warehouse', 'temporal', 'pipelines', 'bin', 'test', 'bench'];
/** the house's ceiling of arrows up (issue #30): the known list may hold at most this many */
const MAX_ARROWS_UP = 3;

const cli = path.join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const run = spawnSync(process.execPath, [cli, '--config', '.dependency-cruiser.cjs', '--output-type', 'json', ...DIRS], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 1 << 30,
});
let result;
try {
  result = JSON.parse(run.stdout);
} catch {
  console.error(`deps: dependency-cruiser did not answer with its JSON report (exit ${run.status}):\n${run.stderr}`);
  process.exit(2);
}

const names = (v) => (v.cycle ?? []).map((c) => c.name).sort();
const same = (a, b) => a.rule.name === b.rule.name && (a.cycle && b.cycle ? names(a).join('\0') === names(b).join('\0') : a.from === b.from && a.to === b.to);
const show = (v) => `${v.rule.name}: ${v.cycle ? [...v.cycle.map((c) => c.name), v.cycle[0].name].join(' -> ') : `${v.from} -> ${v.to}`}`;

// a folder cycle is reported once per folder on the ring: count each ring once
const found = [];
for (const v of result.summary.violations.filter((v) => v.rule.severity === 'error')) if (!found.some((f) => same(f, v))) found.push(v);
const knownPath = path.join(root, KNOWN);
const known = fs.existsSync(knownPath) ? JSON.parse(fs.readFileSync(knownPath, 'utf8')) : [];
const fresh = found.filter((v) => !known.some((k) => same(k, v)));
const gone = known.filter((k) => !found.some((v) => same(k, v)));
const still = found.filter((v) => known.some((k) => same(k, v)));

if (process.argv.includes('--prune-known')) {
  const kept = known.filter((k) => !gone.includes(k));
  fs.writeFileSync(knownPath, `${JSON.stringify(kept, null, 2)}\n`);
  console.log(`deps: ${gone.length} gone violation(s) taken out of ${KNOWN}, ${kept.length} left`);
  process.exit(0);
}

const byRule = (vs) => [...new Set(vs.map((v) => v.rule.name))].map((r) => `${r} ${vs.filter((v) => v.rule.name === r).length}`);
console.log(`deps: ${result.summary.totalCruised} modules, ${result.summary.totalDependenciesCruised} dependencies cruised`);
if (still.length) {
  console.log(`known violations still there (${KNOWN}; ${byRule(still).join(', ')}):`);
  for (const v of still) console.log(`  ${show(v)}`);
}
const up = still.filter((v) => v.rule.name === 'no-arrow-up').length;
if (up > MAX_ARROWS_UP) {
  console.log(`deps: ${up} arrows up are known, the house's ceiling is ${MAX_ARROWS_UP}: take one out before adding to ${KNOWN}`);
  process.exit(1);
}
const comment = (name) => (result.summary.ruleSetUsed?.forbidden ?? []).find((r) => r.name === name)?.comment ?? '';
for (const v of fresh) console.log(`NEW ${show(v)}\n  ${comment(v.rule.name)}`);
for (const k of gone) console.log(`GONE ${show(k)}: take it out of ${KNOWN} (npm run deps -- --prune-known) so that it cannot come back`);
if (fresh.length || gone.length) {
  console.log(`deps: ${fresh.length} new violation(s), ${gone.length} known one(s) gone; the rules are in .dependency-cruiser.cjs`);
  process.exit(1);
}
console.log(`deps: no new violations${still.length ? `, ${still.length} known` : ''}`);
