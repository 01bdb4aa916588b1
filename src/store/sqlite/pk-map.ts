/**
 * Slots of an empty table; it doubles whenever it would be more than half full, and halves when
 * deletes leave it less than an eighth full (a partition that shrinks gives the memory back).
 */
const INITIAL_CAPACITY = 16;
const EMPTY = -1;

/**
 * A map from row keys (`memories.pk`, safe integers) to small non-negative integers (slots,
 * document numbers), in two typed arrays probed linearly. Searches look up one entry per
 * candidate, hundreds per query: a `Map` spreads its entries over the heap and costs a few cache
 * misses per lookup once other work has evicted it; here a lookup usually reads one slot of a
 * compact array.
 */
export class PkMap {
  private keys = new Float64Array(INITIAL_CAPACITY);
  private values = new Int32Array(INITIAL_CAPACITY).fill(EMPTY);
  private mask = INITIAL_CAPACITY - 1;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Approximate bytes held. */
  get bytes(): number {
    return this.keys.byteLength + this.values.byteLength;
  }

  get(pk: number): number | undefined {
    const { keys, values, mask } = this;
    for (let i = slotOf(pk, mask); ; i = (i + 1) & mask) {
      const value = values[i] as number;
      if (value === EMPTY) return undefined;
      if (keys[i] === pk) return value;
    }
  }

  /** Maps `pk` to `value` (a non-negative 32-bit integer), replacing what it mapped to. */
  set(pk: number, value: number): void {
    if (!Number.isSafeInteger(pk)) throw new RangeError(`PkMap key must be a safe integer, got ${pk}`);
    if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) {
      throw new RangeError(`PkMap value must be a non-negative 32-bit integer, got ${value}`);
    }
    if (2 * (this.count + 1) > this.values.length) this.rehash(this.values.length * 2);
    const { keys, values, mask } = this;
    for (let i = slotOf(pk, mask); ; i = (i + 1) & mask) {
      if (values[i] === EMPTY) {
        keys[i] = pk;
        values[i] = value;
        this.count++;
        return;
      }
      if (keys[i] === pk) {
        values[i] = value;
        return;
      }
    }
  }

  /** Removes `pk`; true when it was present. Later entries of its probe run move back (no tombstones). */
  delete(pk: number): boolean {
    const { keys, values, mask } = this;
    let hole = slotOf(pk, mask);
    for (; ; hole = (hole + 1) & mask) {
      if (values[hole] === EMPTY) return false;
      if (keys[hole] === pk) break;
    }
    for (let i = (hole + 1) & mask; values[i] !== EMPTY; i = (i + 1) & mask) {
      // An entry may fill the hole only if its home slot is not cyclically within (hole, i].
      const home = slotOf(keys[i] as number, mask);
      if (((i - home) & mask) >= ((i - hole) & mask)) {
        keys[hole] = keys[i] as number;
        values[hole] = values[i] as number;
        hole = i;
      }
    }
    values[hole] = EMPTY;
    this.count--;
    if (this.values.length > INITIAL_CAPACITY && 8 * this.count < this.values.length) {
      this.rehash(this.values.length / 2);
    }
    return true;
  }

  clear(): void {
    this.keys = new Float64Array(INITIAL_CAPACITY);
    this.values = new Int32Array(INITIAL_CAPACITY).fill(EMPTY);
    this.mask = INITIAL_CAPACITY - 1;
    this.count = 0;
  }

  /** Moves every entry into a table of `capacity` slots (a power of two). */
  private rehash(capacity: number): void {
    const { keys, values } = this;
    this.keys = new Float64Array(capacity);
    this.values = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
    this.count = 0;
    for (let i = 0; i < values.length; i++) if (values[i] !== EMPTY) this.set(keys[i] as number, values[i] as number);
  }
}

/** The home slot of `pk`: both 32-bit halves mixed (Murmur3's finaliser), masked to the table. */
function slotOf(pk: number, mask: number): number {
  let h = (pk >>> 0) ^ Math.imul(Math.floor(pk / 4294967296) | 0, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) & mask;
}
