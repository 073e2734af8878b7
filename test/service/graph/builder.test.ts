/** The graph builder on hand-made sources: mentions cleaned, aliases merged with evidence, constraints, verb-labelled edges. */
import { describe, expect, it } from 'vitest';
import { buildGraph, CO_OCCURS } from '../../../service/graph/builder.js';
import { cleanMention } from '../../../service/graph/mentions.js';
import type { GraphSource } from '../../../service/graph/mentions.js';

const src = (id: string, title: string, entities: GraphSource['entities'], text = ''): GraphSource => ({ id, kind: 'article', title, text, entities });
const opts = { minClusterProbability: 0.9, geo: false, constraints: [] };
const SOURCES = [
  src('a1', 'Vladimir Putin meets Xi Jinping in Beijing', { Person: ['Vladimir Putin', 'Xi Jinping'], Location: ['Beijing'] }),
  src('a2', 'Putin warns NATO over Ukraine', { Person: ['Putin'], Organization: ['NATO'], Location: ['Ukraine'] }),
  src('a3', 'North Atlantic Treaty Organization allies back Kyiv', { Organization: ['North Atlantic Treaty Organization'], Location: ['Kyiv'] }),
  src('a4', 'Biden to hold talks with Putin as US sends troops', { Person: ['Biden', 'With Putin'], Location: ['US'] }),
  src('a5', 'Vladimir Putin and the United States', { Person: ['Vladimir Putin'], Location: ['United States'] }),
];

describe('graph builder', () => {
  it('cleans what headline NER drags along: prepositions and titles, trailing dashes, two places in one mention', () => {
    expect(cleanMention('With Putin', 'Person')).toEqual(['Putin']);
    expect(cleanMention('President Joe Biden', 'Person')).toEqual(['Joe Biden']);
    expect(cleanMention('Ukraine -', 'Location')).toEqual(['Ukraine']);
    expect(cleanMention('Ukraine—Moscow', 'Location')).toEqual(['Ukraine', 'Moscow']);
    expect(cleanMention('Russia, Belarus', 'Location')).toEqual(['Russia', 'Belarus']);
    expect(cleanMention('January: Ukraine', 'Person')).toEqual(['Ukraine']);
    expect(cleanMention('January', 'Person')).toEqual([]);
  });

  it('merges a surname into the full name of the same sources, an acronym into its name, places through the gazetteer; each merge listed with its evidence', () => {
    const { graph, disambiguations } = buildGraph(SOURCES, opts);
    const ids = graph.nodes.map((n) => n.id);
    expect(ids).toEqual(expect.arrayContaining(['Vladimir Putin', 'North Atlantic Treaty Organization', 'United States', 'Ukraine', 'Biden']));
    expect(ids).not.toContain('Putin');
    expect(ids).not.toContain('NATO');
    expect(ids).not.toContain('US');
    const putin = graph.nodes.find((n) => n.id === 'Vladimir Putin')!;
    expect(putin).toMatchObject({ type: 'Person', ner_type: 'PER', sources: 4, aliases: ['Putin'] });
    expect(disambiguations.find((d) => d.aliases.includes('Putin'))).toMatchObject({
      canonical: 'Vladimir Putin',
      method: 'alias',
      applied: true,
      probability: 0.95,
      evidence: { full_name_sources: 2, alias_sources: 2 },
    });
    expect(disambiguations.find((d) => d.aliases.includes('NATO'))).toMatchObject({
      canonical: 'North Atlantic Treaty Organization',
      method: 'acronym',
      applied: true,
      evidence: { initials: 'NATO' },
    });
    expect(disambiguations.find((d) => d.aliases.includes('US'))).toMatchObject({ canonical: 'United States', method: 'gazetteer', applied: true });
    expect(graph.nodes.find((n) => n.id === 'United States')).toMatchObject({ detailed_type: 'Country', ner_type: 'LOC' });
    expect(graph.nodes.find((n) => n.id === 'Beijing')).toMatchObject({ detailed_type: 'City' });
  });

  it('a surname two full names share goes to neither at the default threshold (share of evidence)', () => {
    const s = [
      src('b1', 'Joe Biden speaks', { Person: ['Joe Biden'] }),
      src('b2', 'Joe Biden travels', { Person: ['Joe Biden'] }),
      src('b3', 'Hunter Biden testifies', { Person: ['Hunter Biden'] }),
      src('b4', 'Biden says no', { Person: ['Biden'] }),
    ];
    const { graph, disambiguations } = buildGraph(s, opts);
    expect(graph.nodes.map((n) => n.id)).toContain('Biden');
    const d = disambiguations.find((x) => x.aliases.includes('Biden'))!;
    expect(d).toMatchObject({ canonical: 'Joe Biden', applied: false });
    expect(d.probability).toBeCloseTo(0.633, 3);
    expect(d.reason).toMatch(/below min_cluster_probability 0.9/);
    expect(buildGraph(s, { ...opts, minClusterProbability: 0.5 }).graph.nodes.map((n) => n.id)).not.toContain('Biden');
  });

  it("constraints: a split keeps two names apart, a merge joins names under the caller's canonical id", () => {
    const split = buildGraph(SOURCES, { ...opts, constraints: [{ action: 'split', entities: ['Putin', 'Vladimir Putin'] }] });
    expect(split.graph.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(['Putin', 'Vladimir Putin']));
    expect(split.disambiguations.find((d) => d.aliases.includes('Putin'))).toMatchObject({ applied: false, reason: 'split by constrained_disambiguations' });
    const one = buildGraph(SOURCES, { ...opts, constraints: [{ action: 'split', entities: ['US'] }] });
    expect(one.graph.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(['US', 'United States']));
    const merged = buildGraph(SOURCES, { ...opts, constraints: [{ action: 'merge', entities: ['Kyiv', 'Ukraine'], canonical: 'Ukraine' }] });
    expect(merged.graph.nodes.map((n) => n.id)).not.toContain('Kyiv');
    expect(merged.graph.nodes.find((n) => n.id === 'Ukraine')).toMatchObject({ sources: 2, aliases: ['Kyiv'] });
    expect(merged.disambiguations.find((d) => d.method === 'constrained')).toMatchObject({
      canonical: 'Ukraine',
      applied: true,
      probability: 1,
      evidence: { not_found: [] },
    });
  });

  it('labels an edge with the verb phrase between two entities, else co-occurs; weight counts supporting sources', () => {
    const s = [
      ...SOURCES,
      src('c1', "Biden warns Russia's Vladimir Putin against an invasion", { Person: ['Biden', 'Vladimir Putin'], Location: ['Russia'] }),
      src('c2', 'Biden warns Putin again', { Person: ['Biden', 'Putin'] }),
    ];
    const { graph } = buildGraph(s, opts);
    const edge = (from: string, to: string, label: string) => graph.edges.find((e) => e.from === from && e.to === to && e.label === label);
    expect(edge('Vladimir Putin', 'Xi Jinping', 'meets')).toMatchObject({ weight: 1, sources: ['a1'] });
    expect(edge('Biden', 'Vladimir Putin', 'hold talks with')).toMatchObject({ sources: ['a4'] });
    expect(edge('Biden', 'Vladimir Putin', 'warns')).toMatchObject({ weight: 2, sources: ['c1', 'c2'] });
    expect(edge('Biden', 'Russia', 'warns')).toBeTruthy();
    expect(edge('Vladimir Putin', 'North Atlantic Treaty Organization', 'warns')).toBeTruthy();
    // nothing verbal between them: undirected co-occurrence, ids in order
    expect(edge('Beijing', 'Xi Jinping', CO_OCCURS)).toBeTruthy();
    expect(edge('Russia', 'Vladimir Putin', CO_OCCURS)).toBeTruthy();
    // an entity in the middle owns the verb: Biden does not "hold talks with" the United States
    expect(graph.edges.find((e) => e.from === 'Biden' && e.to === 'United States')?.label ?? CO_OCCURS).toBe(CO_OCCURS);
    for (let i = 1; i < graph.edges.length; i++) expect(graph.edges[i - 1]!.weight).toBeGreaterThanOrEqual(graph.edges[i]!.weight);
  });

  it('geo option: places carry the gazetteer coordinates; the same input gives the same graph', () => {
    const a = buildGraph(SOURCES, { ...opts, geo: true });
    expect(a.graph.nodes.find((n) => n.id === 'Beijing')).toMatchObject({ country: 'CN' });
    expect(a.graph.nodes.find((n) => n.id === 'Beijing')!.latitude).toBeCloseTo(39.9, 0);
    expect(a.graph.nodes.find((n) => n.id === 'Vladimir Putin')!.latitude).toBeUndefined();
    expect(JSON.stringify(buildGraph(SOURCES, { ...opts, geo: true }))).toBe(JSON.stringify(a));
  });
});
