/** The contract: `openapi`. */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildOpenApi } from '../../spec/index.js';

export function register(program: Command): void {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document generated from spec/')
    .option('--out <file>', 'write to a file instead of stdout')
    .action((o: { out?: string }) => {
      const doc = JSON.stringify(buildOpenApi(), null, 2);
      if (o.out) fs.writeFileSync(path.resolve(o.out), doc);
      else console.log(doc);
    });
}
