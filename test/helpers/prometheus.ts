/**
 * The Prometheus text exposition format (version 0.0.4), read back: every sample with its labels,
 * and each metric's TYPE. Strict: a line that is neither a comment nor a well-formed sample throws,
 * so a test that parses /metrics also checks that the text is valid.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  types: Map<string, string>;
  /** samples named `name` whose labels include every one of `labels` */
  find(name: string, labels?: Record<string, string>): Sample[];
  /** their sum (0 when there are none) */
  sum(name: string, labels?: Record<string, string>): number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

function parseLabels(s: string, line: string): [Record<string, string>, string] {
  const labels: Record<string, string> = {};
  let i = 1; // after '{'
  for (;;) {
    if (s[i] === '}') return [labels, s.slice(i + 1)];
    const m = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(s.slice(i));
    if (!m) throw new Error(`bad label in ${JSON.stringify(line)}`);
    i += m[0].length;
    let v = '';
    for (; i < s.length && s[i] !== '"'; i++) {
      if (s[i] === '\\') {
        const e = s[++i];
        v += e === 'n' ? '\n' : e;
      } else v += s[i];
    }
    if (s[i] !== '"') throw new Error(`unterminated label value in ${JSON.stringify(line)}`);
    labels[m[1]!] = v;
    i++;
    if (s[i] === ',') i++;
  }
}

export function parsePrometheus(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    if (line.startsWith('#')) {
      const t = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (t) types.set(t[1]!, t[2]!);
      continue;
    }
    const n = NAME.exec(line);
    if (!n) throw new Error(`bad sample line ${JSON.stringify(line)}`);
    let rest = line.slice(n[0].length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) [labels, rest] = parseLabels(rest, line);
    const v = /^ (\S+)( -?\d+)?$/.exec(rest);
    if (!v) throw new Error(`bad sample value in ${JSON.stringify(line)}`);
    const value = v[1] === '+Inf' ? Infinity : v[1] === '-Inf' ? -Infinity : Number(v[1]);
    // prom-client writes NaN as "Nan" (before any sample): Prometheus reads it with Go's ParseFloat, case-insensitively
    if (Number.isNaN(value) && v[1]!.toLowerCase() !== 'nan') throw new Error(`bad number in ${JSON.stringify(line)}`);
    samples.push({ name: n[0], labels, value });
  }
  const find = (name: string, want: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(want).every(([k, v]) => s.labels[k] === v));
  return { samples, types, find, sum: (name, want) => find(name, want).reduce((a, s) => a + s.value, 0) };
}
