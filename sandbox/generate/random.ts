/**
 * A small seeded PRNG (mulberry32) so a generated cluster, a demo run or a fault scenario is
 * reproduced exactly from its seed. Not for cryptography.
 */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('cannot pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** `length` lowercase hex digits. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.int(16).toString(16);
    return out;
  }

  /** An RFC 4122-shaped (version 4) uid, as the API server assigns. */
  uid(): string {
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${'89ab'[this.int(4)]}${this.hex(3)}-${this.hex(12)}`;
  }

  /** A fresh generator whose sequence depends only on this one's next value (for independent streams). */
  fork(): Random {
    return new Random(this.int(2 ** 32));
  }
}
