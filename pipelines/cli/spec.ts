/** The contract: `openapi`. */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const svc = () => import('../../service/index.js');

/** loaded when a command runs: `newsflow --help` loads no more than the commands */
const spec = () => import('../../spec/index.js');

export function register(program: Command): void {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document this service serves (generated from spec/)')
    .option('--out <file>', 'write to a file instead of stdout')
    .action(async (o: { out?: string }) => {
      // the route handlers (and all they import) load only for this command
      const doc = JSON.stringify((await spec()).buildOpenApi(await (await svc()).openApiOptions()), null, 2);
      if (o.out) fs.writeFileSync(path.resolve(o.out), doc);
      else console.log(doc);
    });
}
