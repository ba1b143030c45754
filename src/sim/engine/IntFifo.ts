import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
/**
 * A first-in, first-out queue of 32-bit integers (request ids) on a growable ring buffer: no
 * allocation per operation, only when it doubles. The simulator's FCFS waiting line.
 *
 * @example
 * ```ts
 * const line = new IntFifo();
 * line.push(3);
 * line.push(5);
 * line.shift(); // 3
 * ```
 */
export class IntFifo {
  private items: Int32Array;
  /** Capacity − 1; the capacity is a power of two so wrapping is a mask. */
  private mask: number;
  private head = 0;
  private length = 0;

  /** @param initialCapacity - rounded up to a power of two (default 64). */
  constructor(initialCapacity = 64) {
    if (!(Number.isInteger(initialCapacity) && initialCapacity >= 1)) {
      throw new InvalidArgumentError(
        `initialCapacity should be a positive integer, got ${initialCapacity}`,
      );
    }
    let capacity = 1;
    while (capacity < initialCapacity) capacity *= 2;
    this.items = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** Number of items waiting. */
  get size(): number {
    return this.length;
  }

  /** Appends `item` at the tail. */
  push(item: number): void {
    if (this.length === this.items.length) this.grow();
    this.items[(this.head + this.length) & this.mask] = item;
    this.length++;
  }

  /** The item at the head, or −1 when empty. */
  peek(): number {
    return this.length > 0 ? this.items[this.head] : -1;
  }

  /** Removes and returns the item at the head, or −1 when empty. */
  shift(): number {
    if (this.length === 0) return -1;
    const item = this.items[this.head];
    this.head = (this.head + 1) & this.mask;
    this.length--;
    return item;
  }

  /** Removes every item. */
  clear(): void {
    this.head = 0;
    this.length = 0;
  }

  private grow(): void {
    const capacity = this.items.length * 2;
    const items = new Int32Array(capacity);
    // Unwrap: the head part first, then the wrapped-around part.
    const headPart = this.items.subarray(this.head);
    items.set(headPart);
    items.set(this.items.subarray(0, this.head), headPart.length);
    this.items = items;
    this.mask = capacity - 1;
    this.head = 0;
  }
}
