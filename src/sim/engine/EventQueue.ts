import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
/**
 * A priority queue of simulation events, ordered by time and, among equal times, by insertion
 * order (FIFO), so a simulation that schedules the same events in the same order always
 * processes them in the same order.
 *
 * Each event is an integer `kind` and a numeric `payload` (an id, a class index…). The queue is
 * an implicit 4-ary min-heap stored as a struct of growable typed arrays: pushing and popping
 * allocate nothing (only growth does, by doubling), and a 4-ary heap halves the depth of a
 * binary one at the price of comparing up to four children, which suits the small, hot heaps of
 * an event simulator.
 *
 * Read the earliest event with {@link EventQueue.peekTime}, {@link EventQueue.peekKind} and
 * {@link EventQueue.peekPayload}, then remove it with {@link EventQueue.pop}.
 *
 * @example
 * ```ts
 * const queue = new EventQueue();
 * queue.push(2.5, 1, 42);
 * queue.push(1.0, 0, 7);
 * queue.peekTime(); // 1
 * queue.peekPayload(); // 7
 * queue.pop();
 * ```
 */
export class EventQueue {
  private times: Float64Array;
  /** Insertion sequence numbers; a double holds them exactly up to 2^53. */
  private sequences: Float64Array;
  private kinds: Int32Array;
  private payloads: Float64Array;
  private length = 0;
  private nextSequence = 0;

  /**
   * @param initialCapacity - events the queue holds before it first grows (default 256); it
   *   doubles whenever it is full.
   */
  constructor(initialCapacity = 256) {
    if (!(Number.isInteger(initialCapacity) && initialCapacity >= 1)) {
      throw new InvalidArgumentError(
        `initialCapacity should be a positive integer, got ${initialCapacity}`,
      );
    }
    this.times = new Float64Array(initialCapacity);
    this.sequences = new Float64Array(initialCapacity);
    this.kinds = new Int32Array(initialCapacity);
    this.payloads = new Float64Array(initialCapacity);
  }

  /** Number of events waiting. */
  get size(): number {
    return this.length;
  }

  /**
   * Adds an event.
   * @param time - when it happens (any unit; the simulator uses seconds); not NaN.
   * @param kind - an integer the caller dispatches on (32-bit).
   * @param payload - a number carried with the event.
   */
  push(time: number, kind: number, payload: number): void {
    if (Number.isNaN(time))
      throw new InvalidArgumentError('event time should be a number, got NaN');
    if (this.length === this.times.length) this.grow();
    const times = this.times;
    const sequences = this.sequences;
    const kinds = this.kinds;
    const payloads = this.payloads;
    const sequence = this.nextSequence++;
    let index = this.length++;
    // The new sequence number exceeds every stored one, so among equal times the newcomer
    // always ranks last: stop as soon as the parent's time is not later.
    while (index > 0) {
      const parent = (index - 1) >> 2;
      const parentTime = times[parent];
      if (parentTime <= time) break;
      times[index] = parentTime;
      sequences[index] = sequences[parent];
      kinds[index] = kinds[parent];
      payloads[index] = payloads[parent];
      index = parent;
    }
    times[index] = time;
    sequences[index] = sequence;
    kinds[index] = kind;
    payloads[index] = payload;
  }

  /** Time of the earliest event, or `Infinity` when the queue is empty. */
  peekTime(): number {
    return this.length > 0 ? this.times[0] : Number.POSITIVE_INFINITY;
  }

  /** Kind of the earliest event (meaningless when the queue is empty). */
  peekKind(): number {
    return this.kinds[0];
  }

  /** Payload of the earliest event (meaningless when the queue is empty). */
  peekPayload(): number {
    return this.payloads[0];
  }

  /** Removes the earliest event; does nothing when the queue is empty. */
  pop(): void {
    if (this.length === 0) return;
    const last = --this.length;
    if (last === 0) return;
    const times = this.times;
    const sequences = this.sequences;
    const kinds = this.kinds;
    const payloads = this.payloads;
    // Sift the last element down from the root, moving the hole rather than swapping.
    const time = times[last];
    const sequence = sequences[last];
    let index = 0;
    for (;;) {
      const first = 4 * index + 1;
      if (first >= last) break;
      let best = first;
      let bestTime = times[first];
      let bestSequence = sequences[first];
      const end = Math.min(first + 4, last);
      for (let child = first + 1; child < end; child++) {
        const childTime = times[child];
        if (childTime < bestTime || (childTime === bestTime && sequences[child] < bestSequence)) {
          best = child;
          bestTime = childTime;
          bestSequence = sequences[child];
        }
      }
      if (bestTime > time || (bestTime === time && bestSequence > sequence)) break;
      times[index] = bestTime;
      sequences[index] = bestSequence;
      kinds[index] = kinds[best];
      payloads[index] = payloads[best];
      index = best;
    }
    times[index] = time;
    sequences[index] = sequence;
    kinds[index] = kinds[last];
    payloads[index] = payloads[last];
  }

  /** Removes every event; the insertion sequence keeps counting, so FIFO order still holds. */
  clear(): void {
    this.length = 0;
  }

  private grow(): void {
    const capacity = this.times.length * 2;
    const times = new Float64Array(capacity);
    const sequences = new Float64Array(capacity);
    const kinds = new Int32Array(capacity);
    const payloads = new Float64Array(capacity);
    times.set(this.times);
    sequences.set(this.sequences);
    kinds.set(this.kinds);
    payloads.set(this.payloads);
    this.times = times;
    this.sequences = sequences;
    this.kinds = kinds;
    this.payloads = payloads;
  }
}
