/** The contract: `openapi`. */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildOpenApi } from '../../spec/index.js';
import { NOT_IMPLEMENTED } from '../../service/routes/index.js';

export function register(program: Command): void {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document this service serves (generated from spec/)')
    .option('--out <file>', 'write to a file instead of stdout')
    .action((o: { out?: string }) => {
      const doc = JSON.stringify(buildOpenApi({ notImplemented: NOT_IMPLEMENTED }), null, 2);
      if (o.out) fs.writeFileSync(path.resolve(o.out), doc);
      else console.log(doc);
    });
}
