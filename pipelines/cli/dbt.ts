/** dbt: `dbt init`, a dbt project (dbt-duckdb) over the warehouse, beside the project file. */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { CliError, dataDirOpt, warehouseOf, warehouseOpt } from './shared.js';

export function register(program: Command): void {
  const dbt = program.command('dbt').description('dbt on the warehouse: init writes a dbt-duckdb project (docs/warehouse.md, From dbt)');
  dbt
    .command('init')
    .description(
      "write a dbt project (dbt-duckdb) over the warehouse: a profile attaching the lake read-only and offline (the install's extension files), sources for every table (description, loaded_at_field, freshness), three example models",
    )
    .option('--dir <dir>', 'the folder to write (default: dbt/ beside the project file, else in this folder)')
    .option('--force', 'write into a folder that exists already (its files of the same names are replaced)')
    .option(...warehouseOpt)
    .option(...dataDirOpt)
    .action(async (o: { dir?: string; force?: boolean; warehouse?: string; dataDir?: string }) => {
      const { useProject, lakeOf } = await import('../config/index.js');
      const p = useProject();
      const dir = path.resolve(o.dir ?? path.join(p.file ? path.dirname(p.file) : process.cwd(), 'dbt'));
      const shown = path.relative(process.cwd(), dir) || '.';
      if (fs.existsSync(dir) && !o.force)
        throw new CliError(`${shown} exists already; remove it, choose another --dir, or add --force to write the dbt project over it`);
      const { TABLES } = await import('../../warehouse/tables/index.js');
      const { KIND_SPECS } = await import('../../workflows/kinds.js');
      const { FEED_TABLES } = await import('../../warehouse/tables/feeds.js');
      const { extensionDir, DUCKDB_VERSION } = await import('../../warehouse/extensions.js');
      const tables = [...TABLES];
      const landed = new Set<string>();
      for (const pl of p.pipelines) for (const t of (KIND_SPECS as Record<string, { tables: readonly string[] }>)[pl.kind]?.tables ?? []) landed.add(t);
      if (p.sources.length) for (const t of FEED_TABLES) landed.add(t.name);
      // the tables of the project's own pipelines (defineTable), landed by its workflow pipelines
      if (p.workflows) {
        const { loadPipelines } = await import('../worker/extensions.js');
        for (const t of (await loadPipelines(p.workflows)).tables) {
          tables.push(t);
          landed.add(t.name);
        }
      }
      const extensionsBase = path.dirname(extensionDir());
      const { catalogSpec } = await import('../../warehouse/lake.js');
      const need = ['ducklake', catalogSpec({ dir: '.', catalog: lakeOf(p).catalog }).kind === 'sqlite' ? 'sqlite_scanner' : 'postgres_scanner'];
      const missing = need.map((n) => path.join(extensionDir(), `${n}.duckdb_extension`)).find((f) => !fs.existsSync(f));
      if (missing)
        throw new CliError(
          `${missing} is missing (DuckDB ${DUCKDB_VERSION}'s extension, which the dbt profile loads by path); run \`bash scripts/fetch-extensions.sh\` in the newsflow install, or set NEWSFLOW_DUCKDB_EXTENSIONS`,
        );
      const { writeDbtProject } = await import('../../warehouse/dbt-project.js');
      const files = writeDbtProject({ dir, warehouseDir: warehouseOf(o), lake: lakeOf(p), extensionsBase, tables, landed });
      for (const f of files) console.log(`wrote ${path.join(shown, f)}`);
      console.log(
        `next: python3 -m pip install -r examples/dbt/requirements.txt (of the newsflow install), then cd ${shown} && dbt build && dbt source freshness`,
      );
    });
}
