/** SizeQueue: the byte sizes of a call's messages in order, as a growable ring of numbers. */

/**
 * Sizes of messages in the order they were sent or received: `push` at the back, `shift` from
 * the front. A ring of a power-of-two length that doubles when full and never shrinks, so a
 * stream costs no allocation per message once it has found its size.
 */
export class SizeQueue {
  private ring = new Float64Array(16);
  private head = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(size: number): void {
    if (this.count === this.ring.length) {
      const old = this.ring;
      const ring = new Float64Array(old.length * 2);
      for (let i = 0; i < this.count; i++)
        ring[i] = old[(this.head + i) & (old.length - 1)] as number;
      this.ring = ring;
      this.head = 0;
    }
    this.ring[(this.head + this.count) & (this.ring.length - 1)] = size;
    this.count++;
  }

  /** The oldest size, removed; 0 when empty. */
  shift(): number {
    if (this.count === 0) return 0;
    const size = this.ring[this.head] as number;
    this.head = (this.head + 1) & (this.ring.length - 1);
    this.count--;
    return size;
  }
}
