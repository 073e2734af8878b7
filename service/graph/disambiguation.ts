/**
 * Disambiguation: which forms are one entity. Proposals, each with a probability and its evidence:
 * - spelling: forms of one key (case, dots, diacritics) are one form already (probability 1);
 * - gazetteer: places the gazetteer resolves to one place ("US", "United States", "America") are
 *   one node named as the gazetteer names it (probability 0.99);
 * - alias: a person named by a surname or a shorter name ("Putin") is the full name used in the
 *   same set of sources whose last words it is ("Vladimir Putin"); an organization's acronym
 *   ("NATO") is the name whose initials it is ("North Atlantic Treaty Organization");
 *   probability = share of the chosen full name among the candidates (by sources naming them) x
 *   (1 - 0.1 x 0.5^(k-1)), k = sources naming the full name + sources naming both (the same
 *   article naming "Putin" and "Vladimir Putin" is the strongest evidence): one candidate named
 *   once is 0.9 (the default min_cluster_probability keeps it), twice 0.95; a surname two full
 *   names share ("Biden": "Joe Biden" 3 sources, "Hunter Biden" 1) is at most their share (0.73);
 * - constrained: the caller's merges (probability 1).
 * A proposal under `min_cluster_probability` is not applied; the caller's splits undo any
 * proposal joining the names of a split (a split of one name: joining it to anything). Every
 * proposal is listed in `disambiguations` with `applied` and, when not applied, `reason`.
 */
import type { z } from 'zod';
import type { ConstrainedDisambiguation } from '../../spec/index.js';
import { gazetteer, type Place } from '../enrich/geo.js';
import { formKey, GRAPH_TYPES, type Form, type GraphType } from './mentions.js';

export type Constraint = z.output<typeof ConstrainedDisambiguation>;

export interface Disambiguation {
  /** the node id the aliases are merged into */
  canonical: string;
  type: GraphType;
  aliases: string[];
  method: 'spelling' | 'gazetteer' | 'alias' | 'acronym' | 'constrained';
  probability: number;
  applied: boolean;
  reason?: string;
  evidence: Record<string, unknown>;
}

export interface Resolution {
  /** fid -> node id */
  nodeOf: Map<string, string>;
  /** node id -> its type */
  typeOf: Map<string, GraphType>;
  /** node id -> the gazetteer place (locations) */
  placeOf: Map<string, Place>;
  disambiguations: Disambiguation[];
}

const round = (x: number) => Math.round(x * 1000) / 1000;
const words = (s: string) => s.split(/\s+/).filter(Boolean);
const SKIP_INITIAL = new Set(['of', 'the', 'and', 'for', 'on', 'in', 'de', 'du', 'la', '&']);
/** "North Atlantic Treaty Organization" -> "NATO" */
export const initials = (s: string) =>
  words(s)
    .filter((w) => !SKIP_INITIAL.has(w.toLowerCase()))
    .map((w) => w[0]!.toUpperCase())
    .join('');
const isAcronym = (s: string) => /^[A-Z][A-Z.&]{1,7}$/.test(s) && s.replace(/[.&]/g, '').length >= 2;

class UnionFind {
  private parent = new Map<string, string>();
  find(x: string): string {
    let p = this.parent.get(x) ?? x;
    while (p !== (this.parent.get(p) ?? p)) p = this.parent.get(p)!;
    this.parent.set(x, p);
    return p;
  }
  /** b's set joins a's; a's root stays the root */
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(rb, ra);
  }
}

interface Proposal {
  alias: Form;
  target: Form | null;
  /** node name when the target is not a form (a gazetteer place, a caller's canonical) */
  name: string;
  d: Disambiguation;
}

const co = (a: Form, b: Form) => [...a.sources].filter((s) => b.sources.has(s));
const prob = (share: number, k: number) => round(share * (1 - 0.1 * 0.5 ** (k - 1)));

/** Spelling variants are listed (they are one form already). */
function spellingVariants(all: Form[]): Disambiguation[] {
  const disambiguations: Disambiguation[] = [];
  for (const f of all) {
    if (f.spellings.size < 2) continue;
    disambiguations.push({
      canonical: f.display,
      type: f.type,
      aliases: [...f.spellings.keys()].filter((s) => s !== f.display),
      method: 'spelling',
      probability: 1,
      applied: true,
      evidence: { spellings: Object.fromEntries(f.spellings), sources: f.sources.size },
    });
  }

  return disambiguations;
}

/** Places: a form the gazetteer knows joins the form named like the place (or the place's name). */
function placeProposals(all: Form[], proposals: Proposal[]): Map<string, Place> {
  const places = new Map<string, Form[]>();
  const placeByForm = new Map<string, Place>();
  for (const f of all) {
    if (f.type !== 'Location') continue;
    const p = gazetteer().lookup(f.display) ?? [...f.spellings.keys()].map((s) => gazetteer().lookup(s)).find(Boolean);
    if (!p) continue;
    placeByForm.set(f.fid, p);
    const k = `${p.kind}:${p.name}:${p.country}`;
    places.set(k, [...(places.get(k) ?? []), f]);
  }
  for (const group of places.values()) {
    const p = placeByForm.get(group[0]!.fid)!;
    const named = group.find((f) => formKey(f.display) === formKey(p.name));
    for (const f of group) {
      if (f === named || formKey(f.display) === formKey(p.name)) continue;
      proposals.push({
        alias: f,
        target: named ?? null,
        name: p.name,
        d: {
          canonical: p.name,
          type: 'Location',
          aliases: [f.display],
          method: 'gazetteer',
          probability: 0.99,
          applied: false,
          evidence: { gazetteer: { name: p.name, kind: p.kind, country: p.country }, sources: f.sources.size },
        },
      });
    }
  }

  return placeByForm;
}

/** People: a surname or shorter name joins the full name whose last words it is. */
function personProposals(all: Form[], proposals: Proposal[]): void {
  const people = all.filter((f) => f.type === 'Person');
  for (const a of people) {
    const aw = words(a.key);
    const cands = people.filter((b) => {
      const bw = words(b.key);
      return bw.length > aw.length && aw.every((w, i) => bw[bw.length - aw.length + i] === w);
    });
    if (!cands.length) continue;
    cands.sort((x, y) => y.sources.size - x.sources.size || words(y.key).length - words(x.key).length || (x.display < y.display ? -1 : 1));
    const best = cands[0]!;
    const total = cands.reduce((n, c) => n + c.sources.size, 0);
    const both = co(a, best);
    const p = prob(best.sources.size / total, best.sources.size + both.length);
    proposals.push({
      alias: a,
      target: best,
      name: best.display,
      d: {
        canonical: best.display,
        type: 'Person',
        aliases: [a.display],
        method: 'alias',
        probability: p,
        applied: false,
        evidence: {
          rule: 'last words of the full name',
          full_name_sources: best.sources.size,
          alias_sources: a.sources.size,
          both_in: both.slice(0, 10),
          candidates: cands.map((c) => ({ name: c.display, sources: c.sources.size })),
        },
      },
    });
  }
}

/** Organizations: an acronym joins the name whose initials it is. */
function acronymProposals(all: Form[], proposals: Proposal[]): void {
  const orgs = all.filter((f) => f.type === 'Organization');
  for (const a of orgs) {
    if (!isAcronym(a.display.replace(/\s/g, ''))) continue;
    const acr = a.display.replace(/[.\s]/g, '').toUpperCase();
    const cands = orgs.filter((b) => b !== a && words(b.display).length >= 2 && initials(b.display) === acr);
    if (!cands.length) continue;
    cands.sort((x, y) => y.sources.size - x.sources.size || (x.display < y.display ? -1 : 1));
    const best = cands[0]!;
    const total = cands.reduce((n, c) => n + c.sources.size, 0);
    const both = co(a, best);
    proposals.push({
      alias: a,
      target: best,
      name: best.display,
      d: {
        canonical: best.display,
        type: 'Organization',
        aliases: [a.display],
        method: 'acronym',
        probability: prob(best.sources.size / total, best.sources.size + both.length),
        applied: false,
        evidence: {
          rule: 'initials of the full name',
          initials: acr,
          full_name_sources: best.sources.size,
          alias_sources: a.sources.size,
          both_in: both.slice(0, 10),
        },
      },
    });
  }
}

export function resolve(forms: Map<string, Form>, opts: { minClusterProbability: number; constraints: Constraint[] }): Resolution {
  const all = [...forms.values()];
  const keyOf = (name: string) => formKey(name);

  // the caller's splits: groups of keys no proposal may join
  const splits = opts.constraints.filter((c) => c.action === 'split').map((c) => new Set(c.entities.map(keyOf)));
  const forbidden = (a: string, b: string) => splits.some((g) => (g.size === 1 ? g.has(a) || g.has(b) : g.has(a) && g.has(b)));

  const disambiguations = spellingVariants(all);
  const proposals: Proposal[] = [];
  const placeByForm = placeProposals(all, proposals);
  personProposals(all, proposals);
  acronymProposals(all, proposals);

  const uf = new UnionFind();
  /** node name of a union-find root that is not a form */
  const names = new Map<string, string>();
  for (const pr of proposals) {
    const targetKey = pr.target ? pr.target.key : formKey(pr.name);
    if (pr.d.probability < opts.minClusterProbability) {
      pr.d.reason = `probability ${pr.d.probability} below min_cluster_probability ${opts.minClusterProbability}`;
    } else if (forbidden(pr.alias.key, targetKey)) {
      pr.d.reason = 'split by constrained_disambiguations';
    } else {
      const root = pr.target ? pr.target.fid : `name|${pr.d.type}|${targetKey}`;
      if (!pr.target) names.set(root, pr.name);
      uf.union(root, pr.alias.fid);
      pr.d.applied = true;
    }
    disambiguations.push(pr.d);
  }

  // the caller's merges
  for (const c of opts.constraints.filter((x) => x.action === 'merge')) {
    const keys = c.entities.map(keyOf);
    const members = all.filter((f) => keys.includes(f.key));
    const canonical = c.canonical ?? [...c.entities].sort((a, b) => b.length - a.length)[0]!;
    const type = (c.type && (GRAPH_TYPES as readonly string[]).includes(c.type) ? c.type : null) as GraphType | null;
    const byMentions = [...members].sort((a, b) => b.mentions - a.mentions);
    const nodeType = type ?? byMentions[0]?.type ?? 'Person';
    const root = `name|${nodeType}|${formKey(canonical)}`;
    names.set(root, canonical);
    for (const f of members) uf.union(root, uf.find(f.fid));
    disambiguations.push({
      canonical,
      type: nodeType,
      aliases: members.map((f) => f.display).filter((d) => d !== canonical),
      method: 'constrained',
      probability: 1,
      applied: true,
      evidence: { constraint: c, found: members.map((f) => f.display), not_found: c.entities.filter((e) => !members.some((f) => f.key === keyOf(e))) },
    });
    // the root now stands for the caller's node: its merges keep its name
    for (const f of members) names.set(uf.find(f.fid), canonical);
  }

  return { ...nodeIds(forms, all, uf, names, placeByForm), disambiguations };
}

/** Node ids: the root's name; one id is one node, whatever types its forms had. */
function nodeIds(
  forms: Map<string, Form>,
  all: Form[],
  uf: UnionFind,
  names: Map<string, string>,
  placeByForm: Map<string, Place>,
): Omit<Resolution, 'disambiguations'> {
  const nodeOf = new Map<string, string>();
  const typeOf = new Map<string, GraphType>();
  const placeOf = new Map<string, Place>();
  const rootName = (root: string) => names.get(root) ?? forms.get(root)?.display ?? root.split('|').slice(2).join('|');
  const rootType = (root: string) => (forms.get(root)?.type ?? root.split('|')[1]) as GraphType;
  const weightOfId = new Map<string, Map<GraphType, number>>();
  for (const f of all) {
    const root = uf.find(f.fid);
    const id = rootName(root);
    nodeOf.set(f.fid, id);
    const t = rootType(root);
    const w = weightOfId.get(id) ?? new Map<GraphType, number>();
    w.set(t, (w.get(t) ?? 0) + f.mentions);
    weightOfId.set(id, w);
    const p = placeByForm.get(f.fid);
    if (p && !placeOf.has(id)) placeOf.set(id, p);
  }
  for (const [id, w] of weightOfId) typeOf.set(id, [...w.entries()].sort((a, b) => b[1] - a[1])[0]![0]);
  return { nodeOf, typeOf, placeOf };
}
