import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkBackoff,
  expectedPreviousDelayMs,
  exponentialCap,
  MAX_DELAY_MS,
} from '../../src/model/backoff/retryDelay.js';
import {
  type BackoffDescription,
  DEFAULT_BACKOFF,
  drawRetryDelay,
  retryDelayLaw,
  seededRandom,
} from '../../src/model/index.js';
import { compensatedSum, expectClose } from './reference.js';

/** The largest double below 1: the top of what a RandomSource may return. */
const NEAR_ONE = 1 - 2 ** -53;

/** Backoffs that checkBackoff accepts, with means small enough that a draw stays finite. */
const backoffs: fc.Arbitrary<BackoffDescription> = fc.oneof(
  fc.record({
    kind: fc.constant('constant' as const),
    delayMs: fc.double({ min: 0, max: MAX_DELAY_MS, noNaN: true }),
  }),
  fc.record(
    {
      kind: fc.constant('exponential' as const),
      baseMs: fc.double({ min: 1e-3, max: 1e9, noNaN: true }),
      factor: fc.double({ min: 1, max: 10, noNaN: true }),
      maxMs: fc.double({ min: 1e-3, max: 1e12, noNaN: true }),
      jitter: fc.constantFrom(
        'none' as const,
        'full' as const,
        'equal' as const,
        'decorrelated' as const,
      ),
    },
    { requiredKeys: ['kind', 'baseMs'] },
  ),
  // −ln(2^−53) ≈ 36.7: a mean up to MAX_DELAY_MS / 37 keeps even the largest draw below the cap.
  fc.record({
    kind: fc.constant('random' as const),
    meanMs: fc.double({ min: 1e-3, max: MAX_DELAY_MS / 37, noNaN: true }),
  }),
);

/** Random sources that return a fixed value, and extremes: 0 and the largest double below 1. */
const randomValues = fc.oneof(
  fc.constant(0),
  fc.constant(NEAR_ONE),
  fc.double({ min: 0, max: NEAR_ONE, noNaN: true }),
);

describe('exponentialCap and the no-jitter law', () => {
  it('equals min(max, base · factor^(r−1)) to 1e-13 relative', () => {
    // The code works in log space (exp of a sum of logs): relative error ≈ ε · |log cap| ≤ 5e-15.
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.option(fc.double({ min: 1, max: 1e10, noNaN: true }), { nil: undefined }),
        fc.integer({ min: 1, max: 60 }),
        (base, factor, max, retry) => {
          const expected = Math.min(
            max ?? MAX_DELAY_MS,
            MAX_DELAY_MS,
            base * factor ** (retry - 1),
          );
          expectClose(
            exponentialCap(base, factor, max, retry),
            expected,
            { rel: 1e-13 },
            {
              base,
              factor,
              max,
              retry,
            },
          );
        },
      ),
      { numRuns: 500 },
    );
    expectClose(exponentialCap(50, 2, undefined, 5), 800, { rel: 1e-15 }, { base: 50, retry: 5 });
    expect(exponentialCap(50, 2, 2000, 7)).toBe(2000);
    expect(exponentialCap(50, 2, undefined, 1000)).toBe(MAX_DELAY_MS);
    expect(exponentialCap(50, 1, undefined, 1000)).toBeCloseTo(50, 12);
  });

  it('exponentialCap is not exact for exact powers (50 · 2⁴ = 800)', () => {
    // exp(ln 50 + 4 ln 2) = 799.9999999999998; 1 · 2³ gives 7.999999999999998. The documented
    // law is min(maxMs, baseMs · factor^(r−1)), which is exact in doubles here.
    expect(exponentialCap(50, 2, undefined, 5)).toBe(800);
    expect(exponentialCap(1, 2, undefined, 4)).toBe(8);
  });

  it('retryDelayLaw and drawRetryDelay agree with it for jitter none', () => {
    const backoff: BackoffDescription = { kind: 'exponential', baseMs: 50, maxMs: 2000 };
    for (let retry = 1; retry <= 12; retry++) {
      const cap = Math.min(2000, 50 * 2 ** (retry - 1));
      const law = retryDelayLaw(backoff, retry);
      expect(law.kind, String(retry)).toBe('fixed');
      if (law.kind === 'fixed') expectClose(law.ms, cap, { rel: 1e-14 }, { retry });
      expectClose(
        drawRetryDelay(backoff, retry, 50, () => 0.5),
        cap,
        { rel: 1e-14 },
        { retry },
      );
    }
    const tripled: BackoffDescription = { kind: 'exponential', baseMs: 10, factor: 3 };
    expectClose(
      drawRetryDelay(tripled, 4, 10, () => 0.5),
      270,
      { rel: 1e-14 },
      tripled,
    );
  });
});

describe('retryDelayLaw', () => {
  it('constant ⇒ fixed, random ⇒ exponential with the same mean', () => {
    expect(retryDelayLaw({ kind: 'constant', delayMs: 25 }, 7)).toEqual({ kind: 'fixed', ms: 25 });
    expect(retryDelayLaw({ kind: 'random', meanMs: 100 }, 3)).toEqual({
      kind: 'exponential',
      meanMs: 100,
    });
    expect(retryDelayLaw(DEFAULT_BACKOFF, 1)).toEqual({ kind: 'exponential', meanMs: 100 });
    expect(Object.isFrozen(DEFAULT_BACKOFF)).toBe(true);
  });

  it('full ⇒ U(0, cap), equal ⇒ U(cap/2, cap)', () => {
    for (let retry = 1; retry <= 8; retry++) {
      const cap = Math.min(1000, 20 * 2 ** (retry - 1));
      const full = retryDelayLaw(
        { kind: 'exponential', baseMs: 20, maxMs: 1000, jitter: 'full' },
        retry,
      );
      const equal = retryDelayLaw(
        { kind: 'exponential', baseMs: 20, maxMs: 1000, jitter: 'equal' },
        retry,
      );
      expect(full.kind).toBe('uniform');
      expect(equal.kind).toBe('uniform');
      if (full.kind === 'uniform' && equal.kind === 'uniform') {
        expect(full.minMs).toBe(0);
        expectClose(full.maxMs, cap, { rel: 1e-14 }, { retry });
        expectClose(equal.minMs, cap / 2, { rel: 1e-14 }, { retry });
        expectClose(equal.maxMs, cap, { rel: 1e-14 }, { retry });
      }
    }
  });

  it('decorrelated ⇒ U(base, min(max, 3 · previous)), previous by the mean recursion if omitted', () => {
    const backoff = {
      kind: 'exponential' as const,
      baseMs: 10,
      maxMs: 1000,
      jitter: 'decorrelated' as const,
    };
    expect(retryDelayLaw(backoff, 3, 40)).toEqual({ kind: 'uniform', minMs: 10, maxMs: 120 });
    expect(retryDelayLaw(backoff, 3, 500)).toEqual({ kind: 'uniform', minMs: 10, maxMs: 1000 });
    // 3 · previous below base: the range never falls below base, so a tiny (or zero) previous
    // delay cannot lock the delays near 0.
    expect(retryDelayLaw(backoff, 2, 2)).toEqual({ kind: 'uniform', minMs: 10, maxMs: 10 });
    // E[d₁] = base, E[dᵣ] = min(max, (base + 3 E[dᵣ₋₁]) / 2): 10, 20, 35, 57.5, 91.25, ….
    const means = [10, 20, 35, 57.5, 91.25, 141.875];
    for (let retry = 1; retry <= means.length; retry++) {
      const previous = means[retry - 1] ?? Number.NaN;
      expect(expectedPreviousDelayMs(backoff, retry), String(retry)).toBe(previous);
      expect(retryDelayLaw(backoff, retry)).toEqual({
        kind: 'uniform',
        minMs: 10,
        maxMs: Math.min(1000, 3 * previous),
      });
    }
    expect(expectedPreviousDelayMs(backoff, 1000)).toBe(1000);
    expect(expectedPreviousDelayMs({ ...backoff, maxMs: undefined }, 2000)).toBe(MAX_DELAY_MS);
  });
});

describe('drawRetryDelay', () => {
  it('full jitter in [0, cap], equal in [cap/2, cap], decorrelated in [base, min(max, max(base, 3·prev))]', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e5, noNaN: true }),
        fc.option(fc.double({ min: 1e-3, max: 1e7, noNaN: true }), { nil: undefined }),
        fc.integer({ min: 1, max: 2000 }),
        fc.double({ min: 0, max: 1e8, noNaN: true }),
        randomValues,
        (baseMs, maxMs, retry, previous, u) => {
          const random = () => u;
          const cap = exponentialCap(baseMs, 2, maxMs, retry);
          const inputs = JSON.stringify({ baseMs, maxMs, retry, previous, u, cap });
          const full = drawRetryDelay(
            { kind: 'exponential', baseMs, maxMs, jitter: 'full' },
            retry,
            previous,
            random,
          );
          expect(full, inputs).toBeGreaterThanOrEqual(0);
          expect(full, inputs).toBeLessThanOrEqual(cap);
          const equal = drawRetryDelay(
            { kind: 'exponential', baseMs, maxMs, jitter: 'equal' },
            retry,
            previous,
            random,
          );
          expect(equal, inputs).toBeGreaterThanOrEqual(cap / 2);
          expect(equal, inputs).toBeLessThanOrEqual(cap);
          const decorrelated = drawRetryDelay(
            { kind: 'exponential', baseMs, maxMs, jitter: 'decorrelated' },
            retry,
            previous,
            random,
          );
          const upper = Math.min(
            maxMs ?? MAX_DELAY_MS,
            MAX_DELAY_MS,
            Math.max(baseMs, 3 * previous),
          );
          expect(decorrelated, inputs).toBeGreaterThanOrEqual(Math.min(baseMs, upper));
          expect(decorrelated, inputs).toBeLessThanOrEqual(upper);
          if (u === 0) {
            expect(full, inputs).toBe(0);
            expect(equal, inputs).toBe(cap / 2);
            expect(decorrelated, inputs).toBe(Math.min(baseMs, upper));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('every kind gives a finite delay in [0, MAX_DELAY_MS], even after 1000+ retries', () => {
    fc.assert(
      fc.property(
        backoffs,
        fc.integer({ min: 1, max: 2000 }),
        randomValues,
        (backoff, retry, u) => {
          const inputs = JSON.stringify({ backoff, retry, u });
          checkBackoff(backoff);
          const previous = backoff.kind === 'exponential' ? backoff.baseMs : 0;
          const delay = drawRetryDelay(backoff, retry, previous, () => u);
          expect(Number.isFinite(delay), inputs).toBe(true);
          expect(delay, inputs).toBeGreaterThanOrEqual(0);
          expect(delay, inputs).toBeLessThanOrEqual(MAX_DELAY_MS);
          const law = retryDelayLaw(backoff, retry);
          const bounds =
            law.kind === 'fixed'
              ? [law.ms]
              : law.kind === 'uniform'
                ? [law.minMs, law.maxMs]
                : [law.meanMs];
          for (const bound of bounds) {
            expect(Number.isFinite(bound), inputs).toBe(true);
            expect(bound, inputs).toBeLessThanOrEqual(MAX_DELAY_MS);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a chain of 2000 decorrelated draws stays finite and ≤ MAX_DELAY_MS', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        fc.option(fc.double({ min: 1, max: 1e12, noNaN: true }), { nil: undefined }),
        fc.integer({ min: 0, max: 1000 }),
        (baseMs, maxMs, seed) => {
          const backoff: BackoffDescription = {
            kind: 'exponential',
            baseMs,
            maxMs,
            jitter: 'decorrelated',
          };
          const random = seededRandom(seed);
          let previous = baseMs;
          for (let retry = 1; retry <= 2000; retry++) {
            const u = retry % 7 === 0 ? NEAR_ONE : random();
            const delay = drawRetryDelay(backoff, retry, previous, () => u);
            // Checked without expect() in the loop (2000 steps × 50 runs); the message on
            // failure names the step.
            if (!(Number.isFinite(delay) && delay >= 0 && delay <= MAX_DELAY_MS)) {
              expect.fail(JSON.stringify({ baseMs, maxMs, seed, retry, previous, u, delay }));
            }
            previous = delay;
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('random kind: exponential with mean meanMs (100k draws)', () => {
    // Standard error of the mean meanMs/√n = 0.32 %; 5 SE = 1.6 %. P(D > mean) = e^(−1).
    const n = 100_000;
    for (const meanMs of [1, 100, 5000]) {
      const random = seededRandom(3);
      const draws = Array.from({ length: n }, (_, i) =>
        drawRetryDelay({ kind: 'random', meanMs }, i + 1, 0, random),
      );
      expectClose(compensatedSum(draws) / n, meanMs, { rel: 0.016 }, { meanMs, n, seed: 3 });
      const above = draws.filter((d) => d > meanMs).length / n;
      expectClose(above, Math.exp(-1), { abs: 5 * Math.sqrt(0.25 / n) }, { meanMs, n });
    }
  });

  it('full jitter draws average cap/2 (100k draws)', () => {
    const n = 100_000;
    const random = seededRandom(4);
    const backoff: BackoffDescription = { kind: 'exponential', baseMs: 100, jitter: 'full' };
    const draws = Array.from({ length: n }, () => drawRetryDelay(backoff, 3, 100, random));
    // cap = 400; SE = 400/√(12 n) = 0.37; 5 SE ≈ 1.8.
    expectClose(compensatedSum(draws) / n, 200, { abs: 1.8 }, { n, seed: 4 });
  });

  it('constant and random delays are not capped at MAX_DELAY_MS', () => {
    // checkBackoff accepts both; MAX_DELAY_MS is documented as "the absolute ceiling of any
    // delay", and setTimeout fires a longer delay after 1 ms.
    const random: BackoffDescription = { kind: 'random', meanMs: 1e8 };
    const constant: BackoffDescription = { kind: 'constant', delayMs: 3e9 };
    checkBackoff(random);
    checkBackoff(constant);
    // −1e8 · ln(2^−53) = 3.67e9 ms.
    expect(drawRetryDelay(random, 1, 0, () => NEAR_ONE)).toBeLessThanOrEqual(MAX_DELAY_MS);
    expect(drawRetryDelay(constant, 1, 0, () => 0.5)).toBeLessThanOrEqual(MAX_DELAY_MS);
  });
});

describe('checkBackoff', () => {
  it('accepts valid descriptions', () => {
    const valid: BackoffDescription[] = [
      DEFAULT_BACKOFF,
      { kind: 'constant', delayMs: 0 },
      { kind: 'exponential', baseMs: 50 },
      { kind: 'exponential', baseMs: 50, factor: 1, maxMs: 10, jitter: 'full' },
      { kind: 'random', meanMs: 0.5 },
    ];
    for (const backoff of valid)
      expect(() => checkBackoff(backoff), JSON.stringify(backoff)).not.toThrow();
  });

  it('throws RangeError/TypeError naming the field and the value', () => {
    const cases: [BackoffDescription, ErrorConstructor, string[]][] = [
      [{ kind: 'constant', delayMs: -1 }, RangeError, ['backoff.delayMs', '-1']],
      [{ kind: 'constant', delayMs: Number.NaN }, RangeError, ['backoff.delayMs', 'NaN']],
      [{ kind: 'random', meanMs: 0 }, RangeError, ['backoff.meanMs', 'got 0']],
      [{ kind: 'random', meanMs: Number.POSITIVE_INFINITY }, RangeError, ['Infinity']],
      [{ kind: 'exponential', baseMs: 0 }, RangeError, ['backoff.baseMs', 'got 0']],
      [{ kind: 'exponential', baseMs: 10, maxMs: -5 }, RangeError, ['backoff.maxMs', '-5']],
      [{ kind: 'exponential', baseMs: 10, factor: 0.5 }, RangeError, ['backoff.factor', '0.5']],
      [
        { kind: 'exponential', baseMs: 10, factor: Number.NaN },
        RangeError,
        ['backoff.factor', 'NaN'],
      ],
      [
        { kind: 'linear' } as unknown as BackoffDescription,
        TypeError,
        ['backoff.kind', '"linear"'],
      ],
    ];
    for (const [backoff, type, named] of cases) {
      const call = () => checkBackoff(backoff);
      expect(call, JSON.stringify(backoff)).toThrow(type);
      for (const part of named) expect(call, JSON.stringify(backoff)).toThrow(part);
    }
  });
});
