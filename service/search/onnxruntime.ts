/**
 * onnxruntime-node, the CPU runtime MiniLM runs on, loaded when MiniLM first needs it: from the
 * package's `.onnxruntime/onnxruntime-node`, which `scripts/fetch-onnxruntime.sh` (run by the
 * postinstall) unpacks from the npm tarball without running its postinstall (that one fetches
 * optional GPU files from NuGet and fails the install where NuGet is out of reach); else an
 * onnxruntime-node the project installed itself (one with its GPU files, say). The types are those of
 * onnxruntime-common, a dependency of the same version.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Ort from 'onnxruntime-common';
import { packageRoot } from '../../lib/package-root.js';

export type OnnxRuntime = typeof Ort;

const require = createRequire(import.meta.url);
export const fetchedOnnxRuntimeDir = () => path.join(packageRoot(), '.onnxruntime', 'onnxruntime-node');

/** Where onnxruntime-node is (a folder or a file to require), or null when it is nowhere. */
export function onnxRuntimeLocation(): string | null {
  const fetched = fetchedOnnxRuntimeDir();
  if (fs.existsSync(path.join(fetched, 'package.json'))) return fetched;
  try {
    return require.resolve('onnxruntime-node');
  } catch {
    return null;
  }
}

let loaded: OnnxRuntime | undefined;

export function onnxRuntime(): OnnxRuntime {
  if (loaded) return loaded;
  const where = onnxRuntimeLocation();
  if (!where) throw new Error(`onnxruntime-node is not installed: run \`bash scripts/fetch-onnxruntime.sh\` in ${packageRoot()} (its postinstall does)`);
  return (loaded = require(where) as OnnxRuntime);
}
