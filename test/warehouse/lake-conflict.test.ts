/**
 * Which lake errors are a concurrent writer's (retried by withLakeRetry) and which are not: a
 * conflict runs again, anything else fails at once with its message.
 */
import { describe, expect, it } from 'vitest';
import { isLakeConflict, withLakeRetry } from '../../warehouse/lake.js';

describe('a lake conflict is retried, another error is not', () => {
  it.each([
    'TransactionContext Error: Failed to commit DuckLake transaction: database is locked',
    'IO Error: SQLITE_BUSY',
    // CI, maintenance beside two landing workers: a flush whose catalog transaction was aborted
    'TransactionContext Error: Failed to delete flushed inlined data in DuckLake from table ducklake_inlined_data_13_2: Current transaction is aborted (please ROLLBACK)',
    'could not serialize access due to concurrent update',
  ])('retries %s', async (message) => {
    expect(isLakeConflict(new Error(message))).toBe(true);
    let calls = 0;
    const r = await withLakeRetry(
      async () => {
        if (++calls < 3) throw new Error(message);
        return 'landed';
      },
      { baseMs: 1 },
    );
    expect([r, calls]).toEqual(['landed', 3]);
  });

  it.each(['Binder Error: Referenced column "nope" not found', 'Conversion Error: Could not convert string to INT32'])(
    'fails at once on %s',
    async (message) => {
      expect(isLakeConflict(new Error(message))).toBe(false);
      let calls = 0;
      await expect(
        withLakeRetry(async () => {
          calls++;
          throw new Error(message);
        }),
      ).rejects.toThrow(message);
      expect(calls).toBe(1);
    },
  );
});
