import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { Clock } from '../../policy/Clock.js';

/**
 * The virtual time of a timeout evaluation, in ms from the start of the run. The harness
 * advances it; a strategy that needs a clock is given {@link VirtualClock.now}, so it sees the
 * simulated time pass, not the real one.
 * @example
 * ```ts
 * const clock = new VirtualClock();
 * const strategy = someStrategy({ clock: clock.now });
 * evaluateTimeouts({ scenario, strategy, noise, clock });
 * ```
 */
export class VirtualClock {
  private nowMs = 0;

  /** The current virtual time, ms (a {@link Clock}, bound so it can be passed around). */
  readonly now: Clock = () => this.nowMs;

  /** Moves the clock `ms` forward. */
  advance(ms: number): void {
    if (!(ms >= 0 && Number.isFinite(ms))) {
      throw new InvalidArgumentError(
        `the virtual clock only moves forward by a finite time, got ${ms} ms`,
      );
    }
    this.nowMs += ms;
  }
}
