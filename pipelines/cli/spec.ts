/** The contract: `openapi`. */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildOpenApi } from '../../spec/index.js';
import { notImplementedOperations } from '../../service/index.js';

export function register(program: Command): void {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document this service serves (generated from spec/)')
    .option('--out <file>', 'write to a file instead of stdout')
    .action(async (o: { out?: string }) => {
      // the route handlers (and all they import) load only for this command
      const doc = JSON.stringify(buildOpenApi({ notImplemented: await notImplementedOperations() }), null, 2);
      if (o.out) fs.writeFileSync(path.resolve(o.out), doc);
      else console.log(doc);
    });
}
