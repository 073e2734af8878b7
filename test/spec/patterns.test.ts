/**
 * The patterns of spec/ are read alike by the server (JavaScript) and by a fuzzer generating from
 * the OpenAPI document (Python's `re`, as Schemathesis reads a JSON Schema pattern: ASCII classes,
 * a closing `$` meaning the end), and what they take is what the server takes: every string
 * Hypothesis draws from a pattern (Python) is matched by the RegExp and accepted by the server's
 * own reading (a URL parser, the cutoff date, the cron checks) in JavaScript.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  CRON,
  cronError,
  CUTOFF_DATE,
  DIGITS_CURSOR,
  EMAIL,
  ENTITY_GUARANTEE,
  HEADER_TOKEN,
  HTTP_HEADER_NAME,
  HTTP_HEADER_VALUE,
  HTTP_URL,
  NOT_BLANK,
  PAGE_URL,
  parseCutoffDate,
} from '../../spec/index.js';
import { INSTALL_HINT } from '../helpers/fuzz.js';

const PATTERNS = {
  HTTP_URL,
  PAGE_URL,
  NOT_BLANK,
  HEADER_TOKEN,
  DIGITS_CURSOR,
  CUTOFF_DATE,
  ENTITY_GUARANTEE,
  EMAIL,
  CRON,
  HTTP_HEADER_NAME,
  HTTP_HEADER_VALUE,
};
type Name = keyof typeof PATTERNS;
/** Strings where engines differ if a pattern is careless: line terminators, non-ASCII digits and spaces, a trailing newline. */
const TRICKY = [
  '',
  ' ',
  '\n',
  'a:b\n',
  'a:b\r',
  'a:b\u2028',
  'a:\u0085',
  '\u0663',
  '2024-01-01-00:00\n',
  '٢٠٢٤-01-01-00:00',
  '12\n',
  '\u00a0',
  '\u180e',
  '\u001c',
  'x\u000b',
  'http://a.b/\n',
  'https://x.example.com/ ',
  '0 * * * *\n',
  '0 * * * *\u00a0',
  'sk-\u0085abcdefgh',
  'a@b.co\n',
];

/** Python's verdicts on TRICKY, and `n` strings Hypothesis draws from each pattern (derandomized). */
function python(n: number): { verdicts: Record<Name, boolean[]>; drawn: Record<Name, string[]> } {
  const script = `
import json, re, sys
from hypothesis import given, settings, HealthCheck, strategies as st
data = json.load(sys.stdin)
def read(p):
    # Schemathesis' reading of a JSON Schema pattern: ASCII classes, a closing $ as the end of the string
    return re.compile(p[:-1] + r"\\Z" if p.endswith("$") else p, re.ASCII)
out = {"verdicts": {}, "drawn": {}}
for name, p in data["patterns"].items():
    c = read(p)
    out["verdicts"][name] = [bool(c.search(s)) for s in data["tricky"]]
    drawn = []
    @settings(max_examples=data["n"], derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(c))
    def draw(s):
        drawn.append(s)
    draw()
    out["drawn"][name] = drawn
json.dump(out, sys.stdout)
`;
  const patterns = Object.fromEntries(Object.entries(PATTERNS).map(([k, v]) => [k, v.source]));
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify({ patterns, tricky: TRICKY, n }), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  expect(r.status, `${r.stderr.slice(-2000)}\n${INSTALL_HINT}`).toBe(0);
  return JSON.parse(r.stdout);
}

describe('the patterns of spec/', () => {
  const py = python(150);

  it('give JavaScript and Python the same verdict on strings where engines differ', () => {
    for (const [name, re] of Object.entries(PATTERNS) as [Name, RegExp][]) {
      expect(
        TRICKY.map((s) => re.test(s)),
        name,
      ).toEqual(py.verdicts[name]);
    }
  });

  it('take in JavaScript every string Python draws from them', () => {
    for (const [name, re] of Object.entries(PATTERNS) as [Name, RegExp][]) {
      expect(py.drawn[name]!.length, name).toBeGreaterThan(50);
      expect(
        py.drawn[name]!.filter((s) => !re.test(s)),
        name,
      ).toEqual([]);
    }
  });

  it('promise only what the server takes: webhook URLs parse with their http(s) scheme, cutoff dates are real minutes, crons pass but for reversed ranges', () => {
    for (const s of py.drawn.HTTP_URL) {
      const u = new URL(s);
      expect(['http:', 'https:'], s).toContain(u.protocol);
      expect(u.hostname.length, s).toBeGreaterThan(0);
    }
    for (const s of py.drawn.CUTOFF_DATE) {
      const t = parseCutoffDate(s);
      expect(t, s).not.toBeNull();
      const d = new Date(t!);
      const [y, mo, day] = s.split('-').map(Number);
      expect([d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()], s).toEqual([y, mo, day]);
    }
    for (const s of py.drawn.CRON) expect(cronError(s) ?? 'ok', s).toMatch(/^(ok|cron .* range ".*" is reversed)$/);
  });
});
