import { describe, expect, it } from 'vitest';
import { rtoTimeouts } from '../../../src/policy/timeouts/index.js';

// Reference values computed by hand from RFC 6298 §2 with K = 4, α = 1/8, β = 1/4, G = 1 ms
// (every step is a sum of dyadic fractions, so they are exact in binary floating point).

/** One attempt as `retry()` makes it: `next(attempt)`, then the observation. */
function attempt(
  strategy: ReturnType<typeof rtoTimeouts>,
  index: number,
  outcome: 'success' | 'timeout' | 'failure',
  latencyMs: number,
): number {
  const timeoutMs = strategy.next(index);
  strategy.observe(outcome, latencyMs);
  return timeoutMs;
}

describe('rtoTimeouts (RFC 6298)', () => {
  it('starts at the initial RTO of 1 s and doubles per retry up to the 60 s ceiling (2.1, 5.5)', () => {
    const rto = rtoTimeouts();
    expect([0, 1, 2, 3, 4, 5, 6, 7, 1000].map((i) => rto.next(i))).toEqual([
      1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000,
    ]);
    expect(rto.sequence()).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000]);
  });

  it('first sample: SRTT = R, RTTVAR = R/2, RTO = SRTT + max(G, K·RTTVAR) (2.2)', () => {
    const rto = rtoTimeouts();
    attempt(rto, 0, 'success', 100);
    expect(rto.state()).toMatchObject({ srttMs: 100, rttvarMs: 50, rtoMs: 300, samples: 1 });
    expect(rto.next(0)).toBe(300);
    expect(rto.next(2)).toBe(1200);
  });

  it('later samples update RTTVAR with the old SRTT, then SRTT (2.3)', () => {
    const rto = rtoTimeouts();
    attempt(rto, 0, 'success', 100);
    attempt(rto, 0, 'success', 200);
    // RTTVAR = 3/4·50 + 1/4·|100 − 200| = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5
    expect(rto.state()).toMatchObject({ srttMs: 112.5, rttvarMs: 62.5, rtoMs: 362.5 });
    attempt(rto, 0, 'success', 50);
    // RTTVAR = 3/4·62.5 + 1/4·|112.5 − 50| = 62.5; SRTT = 7/8·112.5 + 1/8·50 = 104.6875
    expect(rto.state()).toMatchObject({ srttMs: 104.6875, rttvarMs: 62.5, rtoMs: 354.6875 });
  });

  it('the clock granularity G bounds the variance term from below', () => {
    const steady = rtoTimeouts();
    const coarse = rtoTimeouts({ clockGranularityMs: 5 });
    for (let i = 0; i < 12; i++) {
      attempt(steady, 0, 'success', 10);
      attempt(coarse, 0, 'success', 10);
    }
    // After 12 equal samples RTTVAR = 5·(3/4)^11 ≈ 0.211, so K·RTTVAR ≈ 0.84 < G.
    expect(steady.state().rttvarMs).toBeCloseTo(5 * 0.75 ** 11, 12);
    expect(steady.next(0)).toBe(11);
    expect(coarse.next(0)).toBe(15);
  });

  it('clamps the RTO to [minMs, maxMs] (2.4, 2.5), and the back-off to maxMs', () => {
    const rfcFloor = rtoTimeouts({ minMs: 1000 });
    attempt(rfcFloor, 0, 'success', 100);
    expect(rfcFloor.next(0)).toBe(1000);
    const lowCeiling = rtoTimeouts({ maxMs: 5000 });
    attempt(lowCeiling, 0, 'success', 4000);
    expect(lowCeiling.state().rtoMs).toBe(5000);
    expect([0, 1, 2].map((i) => lowCeiling.next(i))).toEqual([5000, 5000, 5000]);
    expect(rtoTimeouts({ initialMs: 3000, maxMs: 5000 }).next(1)).toBe(5000);
  });

  it("Karn's rule: no sample from a retry; the backed-off timer stays until a valid sample", () => {
    const rto = rtoTimeouts();
    expect(attempt(rto, 0, 'timeout', 1000)).toBe(1000);
    // Attempt 1 runs the doubled timer once (not twice) and the next request keeps it.
    expect(attempt(rto, 1, 'success', 1500)).toBe(2000);
    expect(rto.state()).toMatchObject({ srttMs: undefined, samples: 0, backoff: 1 });
    expect([0, 1, 2].map((i) => rto.next(i))).toEqual([2000, 2000, 4000]);
    // A first attempt's success is a valid sample: it sets the RTO and clears the back-off.
    expect(attempt(rto, 0, 'success', 100)).toBe(2000);
    expect(rto.state()).toMatchObject({ srttMs: 100, rttvarMs: 50, rtoMs: 300, backoff: 0 });
    expect(rto.next(0)).toBe(300);
  });

  it('consecutive expiries keep doubling (5.5), up to the ceiling', () => {
    const rto = rtoTimeouts({ maxMs: 10_000 });
    const timeouts = [0, 1, 2, 3, 4, 5].map((i) => attempt(rto, i, 'timeout', 0));
    expect(timeouts).toEqual([1000, 2000, 4000, 8000, 10000, 10000]);
    expect(rto.state().backoff).toBe(4);
    expect(rto.next(0)).toBe(10_000);
  });

  it('takes no sample from a timeout or a failure', () => {
    const rto = rtoTimeouts();
    attempt(rto, 0, 'failure', 3);
    expect(rto.state()).toMatchObject({ samples: 0, rtoMs: 1000, backoff: 0 });
  });

  it('rejects bad options, naming them', () => {
    expect(() => rtoTimeouts({ clockGranularityMs: 0 })).toThrow(/clockGranularityMs/);
    expect(() => rtoTimeouts({ alpha: 1.5 })).toThrow(
      /alpha should be a finite number in \(0, 1\]/,
    );
    expect(() => rtoTimeouts({ minMs: 100, maxMs: 50 })).toThrow(/maxMs/);
    expect(() => rtoTimeouts({ initialMs: 0 })).toThrow(RangeError);
    expect(() => rtoTimeouts({ k: '4' as unknown as number })).toThrow(TypeError);
  });
});
