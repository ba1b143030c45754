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
 * A pop only vacates the root; the work of refilling it is deferred to the next operation. When
 * that is a push (an event handler scheduling the next event, the common case) the newcomer is
 * sifted down from the root (a "replace top"), which for a near-term event stops after a level
 * or two, instead of moving the last element down and then the newcomer up. Anything else
 * refills the root first as a plain pop would. The order of events never depends on the heap's
 * layout: (time, insertion sequence) is a total order.
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
  /** Events waiting (the vacant root, if any, is not one of them). */
  private length = 0;
  private nextSequence = 0;
  /**
   * Whether the root slot was vacated by a pop and not yet refilled; the heap then occupies
   * slots 1 … `length` (`length` + 1 slots in all).
   */
  private vacant = false;

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
    if (this.vacant) {
      this.replaceRoot(time, kind, payload);
      return;
    }
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
    if (this.vacant) this.refill();
    return this.length > 0 ? this.times[0] : Number.POSITIVE_INFINITY;
  }

  /** Kind of the earliest event (meaningless when the queue is empty). */
  peekKind(): number {
    if (this.vacant) this.refill();
    return this.kinds[0];
  }

  /** Payload of the earliest event (meaningless when the queue is empty). */
  peekPayload(): number {
    if (this.vacant) this.refill();
    return this.payloads[0];
  }

  /** Removes the earliest event; does nothing when the queue is empty. */
  pop(): void {
    if (this.vacant) this.refill();
    if (this.length === 0) return;
    // The root's slot stays vacant until the next push fills it, or another operation refills it
    // with the last element.
    this.vacant = --this.length > 0;
  }

  /**
   * Push into a vacant root: the newcomer takes the root and sinks to its place. Its sequence
   * number exceeds every stored one, so it stops above the first child that is later, and passes
   * children of equal time. (The loop is {@link siftDown}'s with that simpler stop test; calling
   * the general one from here made a bare pop-then-push loop 2–3 % slower.)
   */
  private replaceRoot(time: number, kind: number, payload: number): void {
    this.vacant = false;
    const times = this.times;
    const sequences = this.sequences;
    const kinds = this.kinds;
    const payloads = this.payloads;
    const last = ++this.length;
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
      if (bestTime > time) break;
      times[index] = bestTime;
      sequences[index] = bestSequence;
      kinds[index] = kinds[best];
      payloads[index] = payloads[best];
      index = best;
    }
    times[index] = time;
    sequences[index] = this.nextSequence++;
    kinds[index] = kind;
    payloads[index] = payload;
  }

  /** Completes a deferred pop: the last element fills the vacant root and sinks to its place. */
  private refill(): void {
    this.vacant = false;
    const last = this.length;
    this.siftDown(
      this.times[last],
      this.sequences[last],
      this.kinds[last],
      this.payloads[last],
      last,
    );
  }

  /**
   * Puts an element into the root slot of a heap of `size` slots (all but the root valid) and
   * sifts it down, moving the hole rather than swapping.
   */
  private siftDown(
    time: number,
    sequence: number,
    kind: number,
    payload: number,
    size: number,
  ): void {
    const times = this.times;
    const sequences = this.sequences;
    const kinds = this.kinds;
    const payloads = this.payloads;
    const last = size;
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
    kinds[index] = kind;
    payloads[index] = payload;
  }

  /** Removes every event; the insertion sequence keeps counting, so FIFO order still holds. */
  clear(): void {
    this.length = 0;
    this.vacant = false;
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
