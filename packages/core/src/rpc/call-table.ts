/**
 * The open calls of one connection, by call id: a fixed array of slots indexed by the id's low
 * bits, with a Map only for ids whose slot is taken. A client numbers its calls 1, 2, 3, … on a
 * connection (PROTOCOL.md §5.1), so the calls open at once almost always sit in distinct slots
 * and a lookup is an array read and a compare — no hash-table entry is made and freed per call,
 * as a `Map` does. Any ids work (a foreign client may pick them freely); only speed depends on them.
 */

/** Slots per table: calls open at once beyond this, or colliding ids, go to the Map. */
const SLOTS = 256;
const MASK = SLOTS - 1;

export class CallTable<T extends { readonly id: number }> {
  private readonly slots: (T | undefined)[] = new Array<T | undefined>(SLOTS).fill(undefined);
  private readonly overflow = new Map<number, T>();
  private count = 0;

  /** Calls in the table. */
  get size(): number {
    return this.count;
  }

  get(id: number): T | undefined {
    const call = this.slots[id & MASK];
    if (call !== undefined && call.id === id) return call;
    return this.overflow.size === 0 ? undefined : this.overflow.get(id);
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  /** Adds `call`; its id must not be in the table. */
  add(call: T): void {
    const i = call.id & MASK;
    if (this.slots[i] === undefined) this.slots[i] = call;
    else this.overflow.set(call.id, call);
    this.count++;
  }

  /** Removes `call` (this very object); false when it was not in the table. */
  remove(call: T): boolean {
    const i = call.id & MASK;
    if (this.slots[i] === call) {
      this.slots[i] = undefined;
      this.count--;
      return true;
    }
    if (this.overflow.size > 0 && this.overflow.get(call.id) === call) {
      this.overflow.delete(call.id);
      this.count--;
      return true;
    }
    return false;
  }

  /** True when `call` (this very object) is in the table. */
  holds(call: T): boolean {
    return this.get(call.id) === call;
  }

  /** A snapshot of the calls, safe to iterate while calls end. */
  snapshot(): T[] {
    const out: T[] = [];
    if (this.count === 0) return out;
    for (const call of this.slots) if (call !== undefined) out.push(call);
    for (const call of this.overflow.values()) out.push(call);
    return out;
  }

  clear(): void {
    if (this.count === 0) return;
    this.slots.fill(undefined);
    this.overflow.clear();
    this.count = 0;
  }
}
