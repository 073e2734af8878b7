/**
 * What the capability URLs serve: the page drawing a stored graph (cytoscape, served by this
 * service from the npm package: no CDN, the page works offline) and the edges as CSV.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { GRAPH_ASSET } from '../../spec/index.js';
import type { StoredGraph } from './store.js';
import type { GraphEdge } from './builder.js';

const require = createRequire(import.meta.url);

/** Path of the cytoscape script under the API (route get_graph_asset). */
export const ASSET_PATH = `/v1/news/graph/assets/${GRAPH_ASSET}`;
/** Nodes the page draws at most (the most named); the CSV always has every edge. */
export const PAGE_MAX_NODES = 300;

let asset: Buffer | null = null;
export function cytoscapeScript(): Buffer {
  asset ??= fs.readFileSync(require.resolve('cytoscape/dist/cytoscape.min.js'));
  return asset;
}

/** Headers of both capability responses: not cached by shared caches, not indexed, no Referer leaking the id. */
export const CAPABILITY_HEADERS = {
  'cache-control': 'private, no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex, nofollow',
  'x-content-type-options': 'nosniff',
};

const escHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON safe inside a <script> element: no `<`, no line separators that end a JS string. */
const scriptJson = (v: unknown) =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/**
 * One drawn edge per pair of nodes (parallel edges drew as loops around the busiest pairs): its
 * width is the pair's total support, its label the best-supported verb phrase, its arrow that
 * phrase's direction.
 */
export function drawnEdges(edges: GraphEdge[]): { from: string; to: string; label: string; weight: number }[] {
  const pairs = new Map<string, { from: string; to: string; label: string; best: number; weight: number }>();
  for (const e of edges) {
    const k = [e.from, e.to].sort().join('\u0000');
    const p = pairs.get(k) ?? { from: e.from, to: e.to, label: 'co-occurs', best: 0, weight: 0 };
    p.weight += e.weight;
    if (e.label !== 'co-occurs' && e.weight > p.best) Object.assign(p, { from: e.from, to: e.to, label: e.label, best: e.weight });
    pairs.set(k, p);
  }
  return [...pairs.values()].map(({ from, to, label, weight }) => ({ from, to, label, weight }));
}

export function graphPage(g: StoredGraph): { html: string; csp: string } {
  const nonce = crypto.randomBytes(16).toString('base64');
  const nodes = g.graph.nodes.slice(0, PAGE_MAX_NODES);
  const ids = new Set(nodes.map((n) => n.id));
  const edges = g.graph.edges.filter((e) => ids.has(e.from) && ids.has(e.to));
  const data = {
    nodes: nodes.map((n) => ({ id: n.id, type: n.type, detailed_type: n.detailed_type, sources: n.sources, aliases: n.aliases })),
    edges: drawnEdges(edges),
  };
  const shown = nodes.length < g.graph.nodes.length ? ` (the ${nodes.length} most named of ${g.graph.nodes.length})` : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>graph: ${escHtml(g.query || 'all news')}</title>
<style>
html,body{margin:0;height:100%;font:13px/1.4 system-ui,sans-serif;color:#1d1d1f;background:#fff}
header{position:absolute;top:0;left:0;right:0;height:38px;padding:8px 12px;box-sizing:border-box;border-bottom:1px solid #ddd;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#cy{position:absolute;top:38px;bottom:0;left:0;right:0}
.k{display:inline-block;width:10px;height:10px;border-radius:5px;margin:0 3px 0 10px;vertical-align:middle}
</style></head>
<body data-drawn="0">
<header><b>${escHtml(g.query || 'all news')}</b> · ${g.graph.nodes.length} entities, ${g.graph.edges.length} relations${escHtml(shown)} · <a href="triples" rel="noreferrer">edges as CSV</a> · expires ${escHtml(g.expiresAt.toISOString())}<span id="legend"></span></header>
<div id="cy"></div>
<script id="graph-data" type="application/json">${scriptJson(data)}</script>
<script src="${ASSET_PATH}"></script>
<script nonce="${nonce}">
(function () {
  var g = JSON.parse(document.getElementById('graph-data').textContent);
  var colors = { Person: '#e4572e', Organization: '#17a398', Location: '#3b5bdb', Event: '#f2a900', Law: '#8e44ad', Arms: '#555', Politics: '#c2185b' };
  var legend = document.getElementById('legend');
  Object.keys(colors).forEach(function (t) {
    if (!g.nodes.some(function (n) { return n.type === t; })) return;
    var k = document.createElement('span'); k.className = 'k'; k.style.background = colors[t];
    legend.appendChild(k); legend.appendChild(document.createTextNode(t));
  });
  var maxS = Math.max.apply(null, [1].concat(g.nodes.map(function (n) { return n.sources; })));
  var maxW = Math.max.apply(null, [1].concat(g.edges.map(function (e) { return e.weight; })));
  var els = g.nodes.map(function (n) {
    return { data: { id: n.id, label: n.id, color: colors[n.type] || '#888', size: 18 + 42 * Math.sqrt(n.sources / maxS) } };
  }).concat(g.edges.map(function (e, i) {
    return { data: { id: 'e' + i, source: e.from, target: e.to, label: e.label !== 'co-occurs' && (e.weight > 1 || g.edges.length <= 40) ? e.label : '', full: e.label, width: 1 + 5 * e.weight / maxW, directed: e.label !== 'co-occurs' } };
  }));
  var cy = cytoscape({
    container: document.getElementById('cy'), elements: els, wheelSensitivity: 0.3,
    style: [
      { selector: 'node', style: { 'background-color': 'data(color)', label: 'data(label)', width: 'data(size)', height: 'data(size)', 'font-size': 11, 'text-valign': 'bottom', 'text-margin-y': 3 } },
      { selector: 'edge', style: { width: 'data(width)', 'line-color': '#b8bcc6', 'curve-style': 'straight', label: 'data(label)', 'font-size': 9, color: '#555', 'text-rotation': 'autorotate', 'text-background-color': '#fff', 'text-background-opacity': 0.8 } },
      { selector: 'edge[?directed]', style: { 'target-arrow-shape': 'triangle', 'target-arrow-color': '#9096a3', 'line-color': '#9096a3' } }
    ],
    layout: { name: 'circle' }
  });
  var layout = cy.layout({ name: 'cose', animate: false, randomize: false, nodeRepulsion: function () { return 9000; }, idealEdgeLength: function () { return 110; }, numIter: 1500 });
  layout.one('layoutstop', function () {
    cy.fit(undefined, 30);
    document.body.setAttribute('data-drawn', String(cy.nodes().length));
    document.title = 'graph drawn: ' + cy.nodes().length + ' nodes, ' + cy.edges().length + ' edges';
  });
  layout.run();
})();
</script>
</body></html>`;
  const csp = `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src data: blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;
  return { html, csp };
}

/** A CSV cell: quoted when needed (RFC 4180); a leading = + - @ is neutralised so spreadsheets read text, not a formula. */
function cell(v: string | number): string {
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The edges as triples: subject, relation, object, plus weight and the supporting source ids (space-separated). */
export function triplesCsv(g: StoredGraph): string {
  const types = new Map(g.graph.nodes.map((n) => [n.id, n.type]));
  const rows = [['from', 'label', 'to', 'weight', 'from_type', 'to_type', 'sources'].join(',')];
  for (const e of g.graph.edges) {
    rows.push(
      [cell(e.from), cell(e.label), cell(e.to), cell(e.weight), cell(types.get(e.from) ?? ''), cell(types.get(e.to) ?? ''), cell(e.sources.join(' '))].join(
        ',',
      ),
    );
  }
  return `${rows.join('\r\n')}\r\n`;
}
