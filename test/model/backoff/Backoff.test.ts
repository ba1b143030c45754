import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBackoff } from '../../../src/model/backoff/Backoff.js';
import type { BackoffDescription } from '../../../src/model/backoff/BackoffDescription.js';
import { MAX_DELAY_MS } from '../../../src/model/backoff/retryDelay.js';
import { seededRandom } from '../../../src/model/random.js';

/** The largest double below 1: the top of what a RandomSource may return. */
const NEAR_ONE = 1 - 2 ** -53;

type Exponential = Extract<BackoffDescription, { kind: 'exponential' }>;

/** 1,000 chained delays, each retry fed the previous delay as the executor does. */
function chain(description: BackoffDescription, seed: number, retries = 1000): number[] {
  const backoff = createBackoff(description, seededRandom(seed));
  const delays: number[] = [];
  let previous: number | undefined;
  for (let retry = 1; retry <= retries; retry++) {
    previous = backoff.delayMs(retry, previous);
    delays.push(previous);
  }
  return delays;
}

/** The bounds of retry `retry`'s delay given the previous delay (AWS "Exponential Backoff And Jitter"). */
function bounds(b: Exponential, retry: number, previous: number): [number, number] {
  const max = Math.min(b.maxMs ?? MAX_DELAY_MS, MAX_DELAY_MS);
  if (b.jitter === 'decorrelated') {
    const upper = Math.min(max, 3 * previous);
    return [Math.min(b.baseMs, upper), upper];
  }
  const cap = Math.min(max, b.baseMs * (b.factor ?? 2) ** (retry - 1));
  if (b.jitter === 'full') return [0, cap];
  if (b.jitter === 'equal') return [cap / 2, cap];
  return [cap, cap];
}

const exponentials: fc.Arbitrary<Exponential> = fc.record(
  {
    kind: fc.constant('exponential' as const),
    baseMs: fc.double({ min: 1e-3, max: 1e7, noNaN: true }),
    factor: fc.double({ min: 1, max: 10, noNaN: true }),
    maxMs: fc.double({ min: 1e-3, max: 1e13, noNaN: true }),
    jitter: fc.constantFrom(
      'none' as const,
      'full' as const,
      'equal' as const,
      'decorrelated' as const,
    ),
  },
  { requiredKeys: ['kind', 'baseMs', 'jitter'] },
);

describe('createBackoff', () => {
  it('constant: every retry waits delayMs', () => {
    const backoff = createBackoff({ kind: 'constant', delayMs: 250 }, () => 0.5);
    expect([1, 2, 10, 1000].map((r) => backoff.delayMs(r))).toEqual([250, 250, 250, 250]);
  });

  it('exponential without jitter: base · factor^(r−1), capped at maxMs', () => {
    const backoff = createBackoff({ kind: 'exponential', baseMs: 50, maxMs: 1000 }, () => 0.5);
    expect([1, 2, 3, 4, 5, 6].map((r) => backoff.delayMs(r))).toEqual([
      50, 100, 200, 400, 800, 1000,
    ]);
  });

  it('full, equal and decorrelated jitter hit their bounds with the extreme draws', () => {
    const base = { kind: 'exponential', baseMs: 100, maxMs: 10_000 } as const;
    const at = (jitter: Exponential['jitter'], draw: number, retry: number, previous?: number) =>
      createBackoff({ ...base, jitter }, () => draw).delayMs(retry, previous);
    expect(at('full', 0, 3)).toBe(0);
    expect(at('full', 0.5, 3)).toBe(200);
    expect(at('equal', 0, 3)).toBe(200);
    expect(at('equal', 0.5, 3)).toBe(300);
    expect(at('decorrelated', 0, 2, 1_000)).toBe(100);
    expect(at('decorrelated', 0.5, 2, 1_000)).toBe(1_550);
    expect(at('decorrelated', NEAR_ONE, 2, 5_000)).toBeLessThanOrEqual(10_000);
    expect(at('decorrelated', 0, 1)).toBe(100); // first retry: previous defaults to baseMs
  });

  it('every delay stays within its bounds, finite, after 1,000 retries (property)', () => {
    fc.assert(
      fc.property(exponentials, fc.integer(), (description, seed) => {
        const delays = chain(description, seed);
        let previous = description.baseMs;
        for (const [i, delay] of delays.entries()) {
          const [low, high] = bounds(description, i + 1, previous);
          const ok =
            Number.isFinite(delay) &&
            delay >= low &&
            delay <= high * (1 + 1e-12) &&
            delay <= MAX_DELAY_MS;
          // Build the message only on failure: it names every input of the failing retry.
          if (!ok) {
            expect.fail(
              JSON.stringify({ description, seed, retry: i + 1, previous, delay, low, high }),
            );
          }
          previous = delay;
        }
      }),
      { numRuns: 200 },
    );
  });

  it('never gives NaN or Infinity, even at the edges of the random source (property)', () => {
    fc.assert(
      fc.property(exponentials, fc.constantFrom(0, NEAR_ONE), (description, draw) => {
        const backoff = createBackoff(description, () => draw);
        let previous: number | undefined;
        for (let retry = 1; retry <= 1000; retry++) {
          previous = backoff.delayMs(retry, previous);
          if (!(Number.isFinite(previous) && previous >= 0)) {
            expect.fail(JSON.stringify({ description, draw, retry, delay: previous }));
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('the same random source gives the same delays', () => {
    fc.assert(
      fc.property(exponentials, fc.integer(), (description, seed) => {
        expect(chain(description, seed, 50)).toEqual(chain(description, seed, 50));
      }),
      { numRuns: 100 },
    );
    const full = { kind: 'exponential', baseMs: 100, jitter: 'full' } as const;
    expect(chain(full, 1, 20)).not.toEqual(chain(full, 2, 20));
  });

  it('random (memoryless) delays have the right mean', () => {
    const delays = chain({ kind: 'random', meanMs: 100 }, 3, 100_000);
    // standard error 100 / √100000 ≈ 0.32 ms; allow 5 SE.
    const mean = delays.reduce((a, b) => a + b, 0) / delays.length;
    expect(Math.abs(mean - 100)).toBeLessThan(1.6);
  });

  // Known issue (reported): the executor passes the previous delay, which may be a server's
  // `Retry-After: 0` (or a past HTTP date); decorrelated jitter then draws from [min(base, 0), 0],
  // so this and every later retry of the call waits 0 ms. AWS's formula draws from [base, 3·prev]
  // and would climb back.
  it('decorrelated jitter recovers after a zero previous delay', () => {
    const backoff = createBackoff(
      { kind: 'exponential', baseMs: 100, jitter: 'decorrelated' },
      () => 0.5,
    );
    expect(backoff.delayMs(2, 0)).toBeGreaterThan(0); // is 0, and stays 0 for every later retry
  });

  it('rejects a retry number that is not an integer ≥ 1 and a bad description', () => {
    const backoff = createBackoff({ kind: 'constant', delayMs: 1 }, () => 0);
    for (const retry of [0, -1, 1.5, Number.NaN]) {
      expect(() => backoff.delayMs(retry), String(retry)).toThrow(/retry should be an integer ≥ 1/);
    }
    expect(() => createBackoff({ kind: 'exponential', baseMs: -1 }, () => 0)).toThrow(RangeError);
    expect(() => createBackoff({ kind: 'exponential', baseMs: 1, factor: 0.5 }, () => 0)).toThrow(
      /factor/,
    );
    expect(() => createBackoff({ kind: 'linear' } as never, () => 0)).toThrow(TypeError);
  });
});
