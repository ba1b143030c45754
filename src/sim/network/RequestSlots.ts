import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { CallTracker } from '../../policy/retry/CallTracker.js';
import { grown } from '../engine/grown.js';

/** Timer payloads carry a request id below this bound and the attempt's serial above it. */
export const ID_SPAN = 2 ** 22;

/**
 * The requests of a network run, as a struct of typed arrays indexed by a slot id that a free
 * list recycles (grown by doubling); the run's event handlers extend it and read the arrays
 * directly, as fields of the same object.
 */
export abstract class RequestSlots {
  protected requestClass = new Int32Array(256);
  protected requestService = new Int32Array(256);
  /**
   * Per request slot: the call at its current hop, driven by the same engine as `retry()` (class
   * limits, backoff, budget, per-try timeouts, events). Made on a slot's first use, then reused.
   */
  protected trackers: CallTracker[] = [];
  protected measured = new Uint8Array(256);
  /** Virtual time of the external arrival (roots only), seconds. */
  protected arrivalTime = new Float64Array(256);
  protected freeIds = new Int32Array(256);
  // Per request, call-graph mode: the caller's request (−1 for the external client) and the
  // frame of the current attempt (sequence, step, calls left or pending, a failed call seen,
  // whether the branch has been drawn).
  protected parent = new Int32Array(256);
  protected sequence = new Int32Array(256);
  protected step = new Int32Array(256);
  protected callsLeft = new Int32Array(256);
  protected callFailed = new Uint8Array(256);
  protected inBranch = new Uint8Array(256);
  /** Per request: 1 once it has left its entry hop (its attempts are internal calls). */
  protected internal = new Uint8Array(256);
  // Per-try timeouts: the serial of the slot's current attempt (never reset, so a stale timer
  // cannot match a reused slot), and whether the slot is an abandoned attempt still in a queue or
  // waiting for its calls.
  protected serial = new Int32Array(256);
  protected orphan = new Uint8Array(256);
  protected freeCount = 0;
  protected idsInUse = 0;

  protected release(id: number): void {
    this.freeIds[this.freeCount++] = id;
  }

  protected allocate(): number {
    if (this.freeCount > 0) return this.freeIds[--this.freeCount];
    if (this.idsInUse === this.measured.length) this.growRequests();
    if (this.idsInUse === ID_SPAN) {
      throw new InvalidArgumentError(
        `more than ${ID_SPAN} requests in flight at once; the network diverges`,
      );
    }
    return this.idsInUse++;
  }

  protected growRequests(): void {
    const size = this.measured.length * 2;
    this.requestClass = grown(this.requestClass, size);
    this.requestService = grown(this.requestService, size);
    this.arrivalTime = grown(this.arrivalTime, size);
    this.measured = grown(this.measured, size);
    this.freeIds = grown(this.freeIds, size);
    this.parent = grown(this.parent, size);
    this.sequence = grown(this.sequence, size);
    this.step = grown(this.step, size);
    this.callsLeft = grown(this.callsLeft, size);
    this.callFailed = grown(this.callFailed, size);
    this.inBranch = grown(this.inBranch, size);
    this.internal = grown(this.internal, size);
    this.serial = grown(this.serial, size);
    this.orphan = grown(this.orphan, size);
  }
}
