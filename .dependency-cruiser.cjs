// The arrows of the house (ARCHITECTURE.md): spec <- client <- activities <- workflows <- pipelines;
// spec <- service; lib/ below both halves; temporal/ (Temporal management) below activities and pipelines; no import cycles, type-only and `await import()` ones
// included. `npm run deps` checks them (dependency-cruiser).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, counting type-only imports and dynamic import()s.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'spec-imports-nothing-of-ours',
      severity: 'error',
      comment: 'spec/ (the interface in zod) imports nothing of ours.',
      from: { path: '^spec/' },
      to: { path: '^(lib|client|service|activities|workflows|warehouse|temporal|pipelines)/' },
    },
    {
      name: 'lib-below-both',
      severity: 'error',
      comment: 'lib/ holds low-level pieces both halves use: it imports none of them.',
      from: { path: '^lib/' },
      to: { path: '^(spec|client|service|activities|workflows|warehouse|temporal|pipelines)/' },
    },
    {
      name: 'client-only-spec',
      severity: 'error',
      comment: 'client/ knows the interface (spec/) and lib/, nothing above or beside it.',
      from: { path: '^client/' },
      to: { path: '^(service|activities|workflows|warehouse|temporal|pipelines)/' },
    },
    {
      name: 'service-stands-alone',
      severity: 'error',
      comment: 'service/ is a product on its own: it never imports client/, activities/, workflows/, warehouse/, temporal/ or pipelines/.',
      from: { path: '^service/' },
      to: { path: '^(client|activities|workflows|warehouse|temporal|pipelines)/' },
    },
    {
      name: 'warehouse-knows-no-http',
      severity: 'error',
      comment: 'warehouse/ knows DuckDB and Parquet, nothing of HTTP or Temporal.',
      from: { path: '^warehouse/' },
      to: { path: '^(client|service|activities|workflows|temporal|pipelines)/' },
    },
    {
      name: 'temporal-below-both',
      severity: 'error',
      comment:
        'temporal/ (Temporal management: the dev server, the PostgreSQL server, the schedules) imports lib/ only, so that both the CLI (pipelines/) and the activities may import it.',
      from: { path: '^temporal/' },
      to: { path: '^(spec|client|service|activities|workflows|warehouse|pipelines)/' },
    },
    {
      name: 'activities-not-up',
      severity: 'error',
      comment: 'Activities never import workflows/ or pipelines/ (workflows import activity types, never the reverse).',
      from: { path: '^activities/' },
      to: { path: '^(service|workflows|pipelines)/' },
    },
    {
      name: 'workflows-not-up',
      severity: 'error',
      comment: 'workflows/ import activity types and pure helpers, never pipelines/, the service, the warehouse or Temporal management (temporal/).',
      from: { path: '^workflows/' },
      to: { path: '^(service|warehouse|client|temporal|pipelines)/' },
    },
    {
      name: 'service-through-its-door',
      severity: 'error',
      comment: 'pipelines/ reach the service through service/index.ts only.',
      from: { path: '^pipelines/' },
      to: { path: '^service/', pathNot: '^service/index\\.ts$' },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment:
        'No two folders import each other, directly or round a ring (service/news <-> service/search is one). A folder is its own files, not its subfolders. Known ones are in .dependency-cruiser-known-violations.json until they are gone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-arrow-up',
      severity: 'error',
      scope: 'folder',
      comment:
        'A folder of the product does not import a folder less stable than itself (one that imports more of ours than imports it: the Stable Dependencies Principle, dependency-cruiser\'s moreUnstable), e.g. service/search -> service/news. Inside a top-level room (service/, pipelines/, ...): the arrows between rooms are the rules above (client -> lib, pipelines -> activities are declared, whatever their instability). The house allows at most 3; known ones are in .dependency-cruiser-known-violations.json until they are gone. test/ and bench/ may import anything.',
      from: { path: '^([^/]+)/', pathNot: '^(test|bench)(/|$)' },
      to: { moreUnstable: true, path: '^$1(/|$)' },
    },
    {
      name: 'not-to-test',
      severity: 'error',
      comment: 'Nothing of the product imports test/ (the benches use its corpus and data helpers).',
      from: { pathNot: '^(test|bench)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // type-only imports count: a cycle of types is a cycle of the design
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
    exclude: { path: '^(node_modules|\\.tmp|\\.models|\\.duckdb|\\.onnxruntime|data)/' },
  },
};
