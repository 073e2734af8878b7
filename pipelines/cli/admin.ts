/** Administration of the service store: `orgs`, `keys`, `secrets`, `simulate`, each through the running service when one runs on the data dir (its admin routes), else on the store. */
import type { Command } from 'commander';
import { PLANS, SCOPES } from '../../spec/constants.js';
import { CliError, dataDirOf, dataDirOpt, intArg, list, table } from './shared.js';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const svc = () => import('../../service/index.js');

export function register(program: Command): void {
  registerOrgs(program);
  registerKeys(program);
  registerSecrets(program);
  registerSimulate(program);
}

/** `orgs create`, `orgs list`. */
function registerOrgs(program: Command): void {
  const orgs = program.command('orgs').description('organizations (through the running service of the data dir, if any, with its admin token)');
  orgs
    .command('create')
    .description('create an organization owning domains')
    .requiredOption('--name <name>', 'organization name')
    .option('--domains <list>', 'comma-separated domains it owns, e.g. a.com,b.com', list, [])
    .option('--publisher', 'a publisher organization (distribution, news search, article lookup and DeepNews only)')
    .option('--plan <plan>', `plan of its keys: ${PLANS.join(', ')}`, 'enterprise')
    .option(...dataDirOpt)
    .option('--json', 'print JSON')
    .action(async (o: { name: string; domains: string[]; publisher?: boolean; plan: string; dataDir?: string; json?: boolean }) => {
      const org = await (await svc()).withAdmin(dataDirOf(o.dataDir), (k) =>
        k.createOrg({ name: o.name, domains: o.domains, publisher: o.publisher, plan: o.plan }),
      );
      console.log(
        o.json ? JSON.stringify(org) : `created organization ${org.name} (${org.id}) domains=${org.domains.join(',') || '-'} publisher=${org.publisher}`,
      );
    });
  orgs
    .command('list')
    .option(...dataDirOpt)
    .option('--json', 'print JSON')
    .action(async (o: { dataDir?: string; json?: boolean }) => {
      const rows = await (await svc()).withAdmin(dataDirOf(o.dataDir), (k) => k.listOrgs());
      console.log(
        o.json ? JSON.stringify(rows) : table(rows.map((r) => ({ id: r.id, name: r.name, domains: r.domains, publisher: r.publisher, plan: r.plan }))),
      );
    });
}

/** `keys create`, `keys list`, `keys revoke`. */
function registerKeys(program: Command): void {
  const keys = program
    .command('keys')
    .description('API keys (stored hashed; the key is printed once); through the running service of the data dir, if any, with its admin token');
  keys
    .command('create')
    .description('create an API key')
    .requiredOption('--name <name>', 'a label for the key')
    .option('--org <org>', 'organization name or id (an organization key); without it a personal key')
    .requiredOption('--scopes <list>', `comma-separated scopes: ${SCOPES.join(', ')}`, list)
    .option('--plan <plan>', `plan: ${PLANS.join(', ')} (default: the organization's, else free)`)
    .option('--legacy', 'a key from before the distribution scope existed (never carries it)')
    .option(...dataDirOpt)
    .option('--json', 'print JSON')
    .action(async (o: { name: string; org?: string; scopes: string[]; plan?: string; legacy?: boolean; dataDir?: string; json?: boolean }) => {
      const { id, key, row } = await (await svc()).withAdmin(dataDirOf(o.dataDir), (k) => k.createKey(o));
      if (o.json) {
        console.log(JSON.stringify({ id, key, name: row.name, org: row.org_name, scopes: row.scopes, plan: row.plan, legacy: row.legacy }));
      } else {
        console.log(
          `created key ${id} (${row.name}) scopes=${row.scopes.join(',')} plan=${row.plan}${row.org_name ? ` org=${row.org_name}` : ' personal'}${row.legacy ? ' legacy' : ''}`,
        );
        console.log(`\n  ${key}\n\nThis is the only time the key is shown: it is stored hashed.`);
      }
    });
  keys
    .command('list')
    .option(...dataDirOpt)
    .option('--json', 'print JSON')
    .action(async (o: { dataDir?: string; json?: boolean }) => {
      const rows = await (await svc()).withAdmin(dataDirOf(o.dataDir), (k) => k.listKeys());
      const view = rows.map((r) => ({
        id: r.id,
        name: r.name,
        prefix: `${r.key_prefix}…`,
        org: r.org_name,
        scopes: r.scopes,
        plan: r.plan,
        legacy: r.legacy,
        created: r.created_at,
        revoked: r.revoked_at,
      }));
      console.log(o.json ? JSON.stringify(view) : table(view));
    });
  keys
    .command('revoke <id>')
    .option(...dataDirOpt)
    .action(async (id: string, o: { dataDir?: string }) => {
      const ok = await (await svc()).withAdmin(dataDirOf(o.dataDir), (k) => k.revokeKey(id));
      if (!ok) throw new CliError(`no key with id ${id}; list them with: newsflow keys list`);
      console.log(`revoked ${id}`);
    });
}

/** `secrets status`, `secrets rotate`: the master key of the secrets at rest. */
function registerSecrets(program: Command): void {
  const secrets = program
    .command('secrets')
    .description('secrets at rest (BYOK provider keys, AES-256-GCM under a master key: $NEWSFLOW_SECRET_KEY, else $XDG_CONFIG_HOME/newsflow/secret.key)');
  secrets
    .command('status')
    .description('where the master key is, and how many of the stored sealed values it opens (exit 1 when some do not)')
    .option(...dataDirOpt)
    .action(async (o: { dataDir?: string }) => {
      const local = (await import('../config/secrets.js')).secretKeys();
      // through the running service of the data dir (its keys), else on the store (this shell's keys)
      const service = await svc();
      const { s, via } = await service.withAdmin(dataDirOf(o.dataDir), async (k) => ({ s: await k.secretsStatus(local), via: k.via }), service.storeOps);
      const where = (k: { id: string; kind: string; where: string }) =>
        `${k.id} from ${k.kind === 'env' ? '$NEWSFLOW_SECRET_KEY' : k.where}${k.kind === 'data-dir' ? ' (beside the data: move it out with `newsflow secrets rotate`)' : ''}`;
      console.log(`keys of:       ${via}`);
      console.log(`master key:    ${s.current ? where(s.current) : `none yet (the first sealed secret makes ${s.keyFile})`}`);
      for (const k of s.older) console.log(`older key:     ${where(k)} (opens only)`);
      const v1 = !s.sealed.v1
        ? ''
        : s.sealed.rotatedAt
          ? `; ${s.sealed.v1} in the v1 format written after the rotation of ${s.sealed.rotatedAt} UTC, refused (store those keys again)`
          : `; ${s.sealed.v1} sealed before values were bound to their rows (re-sealed by \`newsflow secrets rotate\`, refused after it)`;
      console.log(`sealed values: ${s.sealed.total}, ${s.sealed.opened} open with these keys${v1}`);
      if (s.sealed.opened < s.sealed.total) throw new CliError(`${s.sealed.total - s.sealed.opened} sealed value(s) do not open: ${s.sealed.problem}`);
    });
  secrets
    .command('rotate')
    .description(
      're-seal every stored secret under a new master key (a new key file at $XDG_CONFIG_HOME/newsflow/secret.key, or $NEWSFLOW_SECRET_KEY when set; the old one from --old-key, $NEWSFLOW_SECRET_KEY_OLD or the key files), each bound to its row; a key file left in the data dir is removed',
    )
    .option('--old-key <key>', 'the previous master key (64 hex characters or base64), when NEWSFLOW_SECRET_KEY changed')
    .option(...dataDirOpt)
    .action(async (o: { oldKey?: string; dataDir?: string }) => {
      const dataDir = dataDirOf(o.dataDir);
      const local = { ...(await import('../config/secrets.js')).secretKeys(), ...(o.oldKey ? { oldKey: o.oldKey } : {}) };
      // through the running service of the data dir (it takes the new key at once), else on the store
      const service = await svc();
      const r = await service
        .withAdmin(dataDir, (k) => k.rotateSecrets(local), service.storeOps)
        .catch((e: Error) => {
          throw new CliError(/^rotation failed/.test(e.message) ? e.message : `rotation failed, nothing changed: ${e.message}`);
        });
      console.log(`re-sealed ${r.rotated} secret(s): master key ${r.from} -> ${r.to}${r.keyFile ? ` (${r.keyFile})` : ' ($NEWSFLOW_SECRET_KEY)'}`);
      for (const f of r.removed) console.log(`removed ${f} (the data dir holds no key now)`);
    });
}

/** `simulate hits`: a synthetic hit history. */
function registerSimulate(program: Command): void {
  program
    .command('simulate <what>')
    .description(
      'write a synthetic hit history (what: hits), marked synthetic in the store: events spread Zipf-like (s = 1.1) over a seeded ordering of the articles; kinds 70% surface, 15% citation, 10% full_text, 5% grounded',
    )
    .option('--months <n>', 'months back from today', intArg('--months'), 6)
    .option('--seed <n>', 'random seed (the same seed writes the same history)', intArg('--seed'), 1)
    .option('--events-per-day <n>', 'events per day', intArg('--events-per-day'), 2000)
    .option(...dataDirOpt)
    .action(async (what: string, o: { months: number; seed: number; eventsPerDay: number; dataDir?: string }) => {
      if (what !== 'hits') throw new CliError(`unknown simulation "${what}"; use: newsflow simulate hits`);
      const service = await svc();
      const r = await service
        .withAdmin(dataDirOf(o.dataDir), (k) => k.simulateHits({ months: o.months, seed: o.seed, eventsPerDay: o.eventsPerDay }), service.storeOps)
        .catch((e: Error) => {
          throw new CliError(e.message);
        });
      console.log(JSON.stringify(r));
    });
}
