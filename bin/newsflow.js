#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader, so no build step sits between `npm ci` and use.
import { register } from 'tsx/esm/api';
register();
await import('../pipelines/cli.ts');
