/**
 * scripts/longest-functions.ts: every kind of function is measured, nested ones on their own,
 * and named the way a reader would look for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionLengths } from '../../scripts/longest-functions.js';
import { tempDir } from '../helpers/service.js';

describe('longest-functions', () => {
  it('measures declarations, methods, arrows and nested functions in lines, longest first', () => {
    const file = path.join(tempDir('newsflow-longest-'), 'sample.ts');
    fs.writeFileSync(
      file,
      [
        'export function outer() {', // 1
        '  const inner = () => {', // 2
        '    return 1;',
        '  };', // 4
        '  return inner();',
        '}', // 6
        'class Store {',
        '  constructor() {}', // 8
        '  get size() {', // 9
        '    return 0;',
        '  }', // 11
        '}',
        'const table = { pick: function () { return 2; } };', // 13
        '[1].map((x) => x);', // 14
      ].join('\n'),
    );
    const got = functionLengths([file]).map(({ name, line, lines }) => [name, line, lines]);
    expect(got).toEqual([
      ['outer', 1, 6],
      ['inner', 2, 3],
      ['Store.size', 9, 3],
      ['Store.constructor', 8, 1],
      ['pick', 13, 1],
      ['(callback of [1].map)', 14, 1],
    ]);
  });
});
