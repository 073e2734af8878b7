/**
 * A membership filter of a table's merge keys, by their 64-bit DuckDB `hash()` given as two
 * 32-bit halves: an open-addressing table (home slot from the low half) of 32-bit fingerprints
 * (the high half) in one Uint32Array, 4 bytes a slot. `mayHave` has no false negatives; a false
 * positive (another key in the same slot chain with the same high half, ~1 in 2^32 a lookup) only
 * sends a landing to the exact path that reads the lake. Keys are never removed (a deleted key
 * stays "maybe"). The capacity is fixed (the low half is not kept, so it cannot be rehashed):
 * `full` says when it holds 70% of its slots, and the owner builds a larger one from the table.
 */
export class KeyFilter {
  private readonly slots: Uint32Array;
  private n = 0;

  /** at least twice `keys` slots, plus 512 Ki (2 MB) of room for a small table to grow into */
  constructor(keys: number) {
    let cap = 1 << 16;
    while (cap < keys * 2 + (1 << 19)) cap *= 2;
    this.slots = new Uint32Array(cap);
  }

  get size(): number {
    return this.n;
  }

  /** 70% of the slots taken: linear probing is still short (~6 slots for a miss) */
  get full(): boolean {
    return this.n > this.slots.length * 0.7;
  }

  /** the fingerprint: the high half, never 0 (0 marks an empty slot) */
  private static fp(hi: number): number {
    return hi >>> 0 === 0 ? 1 : hi >>> 0;
  }

  /** Adds a key; a filter past full keeps working (chains grow) until its owner replaces it. */
  add(hi: number, lo: number): void {
    if (this.n + 1 >= this.slots.length) throw new Error('key filter out of slots');
    const fp = KeyFilter.fp(hi);
    const mask = this.slots.length - 1;
    for (let i = lo & mask; ; i = (i + 1) & mask) {
      const s = this.slots[i]!;
      if (s === fp) return;
      if (s === 0) {
        this.slots[i] = fp;
        this.n++;
        return;
      }
    }
  }

  mayHave(hi: number, lo: number): boolean {
    const fp = KeyFilter.fp(hi);
    const mask = this.slots.length - 1;
    for (let i = lo & mask; ; i = (i + 1) & mask) {
      const s = this.slots[i]!;
      if (s === 0) return false;
      if (s === fp) return true;
    }
  }
}
