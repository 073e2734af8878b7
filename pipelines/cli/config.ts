/** The project file: `init` (a commented starter file) and `config check` (one line per problem). */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { CliError } from './shared.js';

export function register(program: Command): void {
  program
    .command('init [dir]')
    .description('write a commented starter project file (newsflow.yaml) into an empty folder (default: this one)')
    .option('--force', 'write it even if the folder is not empty (never over an existing newsflow.yaml)')
    .action(async (dir: string | undefined, o: { force?: boolean }) => {
      const { STARTER_FILE, PROJECT_FILE_NAMES } = await import('../config/index.js');
      const target = path.resolve(dir ?? '.');
      fs.mkdirSync(target, { recursive: true });
      const existing = PROJECT_FILE_NAMES.map((n) => path.join(target, n)).find((f) => fs.existsSync(f));
      if (existing)
        throw new CliError(`${path.relative(process.cwd(), existing) || existing} exists already; edit it, or run newsflow init in an empty folder`);
      const others = fs.readdirSync(target).filter((f) => !f.startsWith('.') && f !== 'node_modules' && f !== 'package.json' && f !== 'package-lock.json');
      if (others.length && !o.force)
        throw new CliError(
          `${target} is not empty (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', ...' : ''}); run it in an empty folder, or add --force`,
        );
      const file = path.join(target, 'newsflow.yaml');
      fs.writeFileSync(file, STARTER_FILE);
      const rel = path.relative(process.cwd(), file) || file;
      console.log(`wrote ${rel}\nnext: npx newsflow config check${dir ? ` --config ${rel}` : ''}, then npx newsflow start`);
    });

  const config = program.command('config').description('the project file (newsflow.yaml)');
  config
    .command('check')
    .description('validate the project file: one line per problem (file:line:col: field: what it takes), exit 1 if any')
    .action(async () => {
      const { useProject } = await import('../config/index.js');
      const { declareSchedules } = await import('../schedules/declare.js');
      const { noticesSchedules } = await import('../run/notices.js');
      const p = useProject();
      const declared = declareSchedules(p.pipelines);
      const schedules = [...declared, ...noticesSchedules(declared, p.notify)];
      const where = p.file ? path.relative(process.cwd(), p.file) || p.file : 'no newsflow.yaml here: the defaults (newsflow init writes them to a file)';
      console.log(`${where}: ok, ${p.pipelines.length} pipeline(s), ${schedules.length} schedule(s), ${p.sources.length} source(s)`);
      for (const s of schedules) console.log(`  ${s.id}: ${s.description}`);
    });
}
