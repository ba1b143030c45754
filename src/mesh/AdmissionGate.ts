/** What {@link AdmissionGate.enter} decided for an arriving request. */
import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
export type Admission = 'run' | 'queued' | 'rejected';

/**
 * Inbound admission in front of a service, as the model's M/M/c/m station sees it: at most `c`
 * requests run at once and at most `m` are in the system (running plus waiting, FIFO); a request
 * that finds `m` present is rejected at once, before the service does any work. Pure bookkeeping —
 * no timers, no sockets: the sidecar and the testbed's services hold the items (their pending
 * requests) and act on the answers.
 * @example
 * ```ts
 * const gate = new AdmissionGate<() => void>(1, 50);
 * const admission = gate.enter(start); // 'run' → start now, 'queued' → later, 'rejected' → 503
 * // when a running request ends:
 * gate.leave()?.(); // starts the next queued request, if any
 * ```
 */
export class AdmissionGate<T> {
  /** c: requests that may run at once. */
  readonly concurrency: number;
  /** m: the most requests in the system, running plus queued. */
  readonly capacity: number;
  private running = 0;
  private readonly waiting: T[] = [];
  private head = 0;

  /**
   * @param concurrency - c, an integer ≥ 1.
   * @param capacity - m, an integer ≥ c.
   * @throws RangeError naming the bad value.
   */
  constructor(concurrency: number, capacity: number) {
    if (!(Number.isInteger(concurrency) && concurrency >= 1)) {
      throw new InvalidArgumentError(`concurrency should be an integer ≥ 1, got ${concurrency}`);
    }
    if (!(Number.isInteger(capacity) && capacity >= concurrency)) {
      throw new InvalidArgumentError(
        `capacity (system capacity m) should be an integer ≥ concurrency (${concurrency}), got ${capacity}`,
      );
    }
    this.concurrency = concurrency;
    this.capacity = capacity;
  }

  /** Requests running now. */
  get active(): number {
    return this.running;
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.waiting.length - this.head;
  }

  /** Requests in the system (running plus waiting). */
  get inSystem(): number {
    return this.running + this.queued;
  }

  /** Admits `item`: it may run now, it waits (FIFO), or it is rejected because m are present. */
  enter(item: T): Admission {
    if (this.running < this.concurrency) {
      this.running++;
      return 'run';
    }
    if (this.inSystem >= this.capacity) return 'rejected';
    this.waiting.push(item);
    return 'queued';
  }

  /**
   * A running request ended. Returns the queued item that runs in its place (its slot is taken
   * for it), or undefined when none waits.
   * @throws RangeError when nothing is running.
   */
  leave(): T | undefined {
    if (this.running === 0) throw new RangeError('leave() without a running request');
    if (this.head < this.waiting.length) {
      const next = this.waiting[this.head] as T;
      this.waiting[this.head++] = undefined as T;
      if (this.head > 1024 && this.head * 2 > this.waiting.length) {
        this.waiting.splice(0, this.head);
        this.head = 0;
      }
      return next;
    }
    this.running--;
    return undefined;
  }

  /** Removes a queued item that will not run after all (its client went away); false if absent. */
  cancel(item: T): boolean {
    const index = this.waiting.indexOf(item, this.head);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    return true;
  }
}
