// Lint: typescript-eslint's recommended rules over the whole tree. Formatting is Biome's
// (biome.json; `npm run format` writes it, `npm run lint` checks both).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.models/', '.duckdb/', '.tmp/', 'data/', 'dist/', 'coverage/', 'service/search/dot-wasm.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
);
