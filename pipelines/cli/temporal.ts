/** The Temporal server for production-like setups: `temporal install`. */
import type { Command } from 'commander';

export function register(program: Command): void {
  const t = program.command('temporal').description('the Temporal server (PostgreSQL persistence): npx newsflow start --temporal postgres');
  t.command('install')
    .description('build the Temporal server 1.29.1 and its SQL schema tool with go install (a few minutes) into ~/.cache/newsflow (NEWSFLOW_CACHE_DIR)')
    .option('--force', 'build again even when present')
    .action(async (o: { force?: boolean }) => {
      const { installTemporalServer } = await import('../../temporal/index.js');
      installTemporalServer({ force: o.force, log: (m) => console.error(m) });
    });
}
