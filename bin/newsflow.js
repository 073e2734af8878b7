#!/usr/bin/env node
// The newsflow CLI. An installed package runs its built JavaScript (dist/, made by `npm pack`'s
// prepack build); a checkout of the repository runs the TypeScript through tsx, so no build step
// sits between `npm ci` and use (NEWSFLOW_BUILT=1 runs the built files there too, after `npm run build`).
import fs from 'node:fs';

const built = new URL('../dist/pipelines/cli/index.js', import.meta.url);
const source = new URL('../pipelines/cli/index.ts', import.meta.url);
let cli;
if (fs.existsSync(built) && (process.env.NEWSFLOW_BUILT === '1' || !fs.existsSync(source))) cli = await import(built.href);
else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(source.href);
}
await cli.main();
