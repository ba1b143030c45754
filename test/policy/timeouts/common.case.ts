import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  TimeoutObservation,
  TimeoutStrategy,
} from '../../../src/policy/timeouts/TimeoutStrategy.js';

/** One call on a strategy: a timeout asked for, an attempt observed, or a request begun. */
export type TimeoutEvent =
  | { readonly call: 'next'; readonly attempt: number }
  | { readonly call: 'observe'; readonly outcome: TimeoutObservation; readonly latencyMs: number }
  | { readonly call: 'begin' };

/** A strategy with an explicit request boundary (the Combined system). */
interface WithBoundary {
  beginRequest(): { readonly diagnostic: boolean };
}

/** How the suite builds one strategy. */
export interface TimeoutCase {
  /** A fresh strategy. */
  readonly make: () => TimeoutStrategy;
  /** Observations in one property run at most; default 300. */
  readonly maxEvents?: number;
  /** Property runs; default 100. */
  readonly runs?: number;
  /** Whether it checks its input (every strategy here does; `fixedTimeout` does not); default true. */
  readonly checksInput?: boolean;
}

/** Latencies (ms) from 0 to hours, with many repeats and near-ties. */
const latencyMs = fc.oneof(
  fc.constant(0),
  fc.constantFrom(1, 10, 100, 1000),
  fc.double({ min: 0, max: 50, noNaN: true }),
  fc.double({ min: 0, max: 5_000, noNaN: true }),
  fc.double({ min: 0, max: 10_000_000, noNaN: true }),
);

/** Random calls: mostly observations, as `retry()` and the simulator make them, in any order. */
export function timeoutEvents(maxLength: number): fc.Arbitrary<TimeoutEvent[]> {
  const event: fc.Arbitrary<TimeoutEvent> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        call: fc.constant('observe' as const),
        outcome: fc.constantFrom<TimeoutObservation>('success', 'success', 'timeout', 'failure'),
        latencyMs,
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({ call: fc.constant('next' as const), attempt: fc.nat({ max: 12 }) }),
    },
    { weight: 1, arbitrary: fc.constant({ call: 'begin' as const }) },
  );
  return fc.array(event, { maxLength });
}

/** Applies `events`; returns every answer of `next` (and, for `begin`, whether diagnostic). */
export function replay(strategy: TimeoutStrategy, events: readonly TimeoutEvent[]): unknown[] {
  const boundary = strategy as Partial<WithBoundary>;
  return events.map((event) => {
    if (event.call === 'next') return strategy.next(event.attempt);
    if (event.call === 'observe') {
      strategy.observe(event.outcome, event.latencyMs);
      return null;
    }
    return typeof boundary.beginRequest === 'function' ? boundary.beginRequest().diagnostic : null;
  });
}

/** `next(0)`, …, `next(lastAttempt)` in order: one request's timeouts. */
export function requestTimeouts(strategy: TimeoutStrategy, lastAttempt = 1000): number[] {
  return Array.from({ length: lastAttempt + 1 }, (_, attempt) => strategy.next(attempt));
}

/** Everything a strategy shows: its answers, its sequence and state when it has them. */
function snapshot(strategy: TimeoutStrategy, answers: unknown[]): unknown {
  const inspectable = strategy as Partial<{ sequence(): unknown; state(): unknown }>;
  return {
    answers,
    sequence: inspectable.sequence?.(),
    state: inspectable.state?.(),
    request: requestTimeouts(strategy, 30),
  };
}

/**
 * The shared conformance suite of {@link TimeoutStrategy} (hono's `common.case.test.ts` pattern):
 * one call per strategy, from `conformance.test.ts`.
 */
export function timeoutConformance(label: string, timeoutCase: TimeoutCase): void {
  const { make } = timeoutCase;
  const maxEvents = timeoutCase.maxEvents ?? 300;
  const numRuns = timeoutCase.runs ?? 100;
  describe(`TimeoutStrategy conformance: ${label}`, () => {
    beforeEach(() => {
      vi.useFakeTimers();
      vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    });
    afterEach(() => {
      vi.restoreAllMocks();
      vi.useRealTimers();
    });

    it('answers a positive finite timeout for attempts 0 to 1000, whatever it observed', () => {
      fc.assert(
        fc.property(timeoutEvents(maxEvents), (events) => {
          const strategy = make();
          for (const [step, answer] of replay(strategy, events).entries()) {
            if (typeof answer === 'number' && !(Number.isFinite(answer) && answer > 0)) {
              expect.fail(`next() answered ${answer} at step ${step}`);
            }
          }
          for (const [attempt, timeoutMs] of requestTimeouts(strategy).entries()) {
            if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
              expect.fail(`next(${attempt}) = ${timeoutMs} after the events`);
            }
          }
        }),
        { numRuns },
      );
    });

    it("a request's timeouts do not decrease from one attempt to the next", () => {
      fc.assert(
        fc.property(timeoutEvents(maxEvents), (events) => {
          const strategy = make();
          replay(strategy, events);
          const timeouts = requestTimeouts(strategy);
          for (let attempt = 1; attempt < timeouts.length; attempt++) {
            if ((timeouts[attempt] as number) < (timeouts[attempt - 1] as number)) {
              expect.fail(
                `next(${attempt}) = ${timeouts[attempt]} < next(${attempt - 1}) = ${timeouts[attempt - 1]}`,
              );
            }
          }
        }),
        { numRuns },
      );
    });

    it('is deterministic: the same calls give the same answers and state', () => {
      fc.assert(
        fc.property(timeoutEvents(maxEvents), (events) => {
          const first = make();
          const second = make();
          expect(snapshot(second, replay(second, events))).toEqual(
            snapshot(first, replay(first, events)),
          );
        }),
        { numRuns: Math.ceil(numRuns / 2) },
      );
    });

    it('never reads the real clock: the answers do not depend on the time of day', () => {
      const now = vi.spyOn(Date, 'now');
      const performanceNow = vi.spyOn(performance, 'now');
      fc.assert(
        fc.property(timeoutEvents(maxEvents), (events) => {
          vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
          const early = make();
          const earlyAnswers = snapshot(early, replay(early, events));
          vi.setSystemTime(new Date('2031-06-15T12:34:56Z'));
          vi.advanceTimersByTime(123_456);
          const late = make();
          expect(snapshot(late, replay(late, events))).toEqual(earlyAnswers);
        }),
        { numRuns: Math.ceil(numRuns / 4) },
      );
      expect(now).not.toHaveBeenCalled();
      expect(performanceNow).not.toHaveBeenCalled();
    });

    if (timeoutCase.checksInput === false) return;
    it('rejects an attempt that is not an integer ≥ 0 and an observation it cannot read', () => {
      const strategy = make();
      for (const bad of [-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(() => strategy.next(bad), String(bad)).toThrow(RangeError);
      }
      expect(() => strategy.observe('success', Number.NaN)).toThrow(/latencyMs/);
      expect(() => strategy.observe('lost' as TimeoutObservation, 10)).toThrow(TypeError);
    });
  });
}
