// The soak's open-loop pacing (src/experiments/soak/soakPacer.ts), in virtual time.
import { describe, expect, it } from 'vitest';
import { arrivalsDue, shuffled } from '../../src/experiments/soak/soakPacer.js';
import { seededRandom } from '../../src/model/random.js';

describe('arrivalsDue', () => {
  it('issues ⌊rate · t⌋ arrivals by time t, however the ticks fall', () => {
    for (const rate of [0.25, 1, 40, 230, 400]) {
      let issued = 0;
      let t = 0;
      let step = 1;
      while (t < 60_000) {
        t += step;
        step = (step * 7) % 23; // uneven ticks from 1 to 22 ms
        issued += arrivalsDue(rate, t, issued, 1_000);
        const want = Math.floor((rate * t) / 1000);
        if (issued !== want)
          throw new Error(`rate ${rate}, t ${t}: ${issued} issued, want ${want}`);
      }
    }
  });

  it('catches up a burst at a time after a stall, and never goes negative', () => {
    expect(arrivalsDue(400, 1_000, 0, 50)).toBe(50);
    expect(arrivalsDue(400, 1_000, 390, 50)).toBe(10);
    expect(arrivalsDue(400, 1_000, 450, 50)).toBe(0);
    expect(arrivalsDue(400, -5, 0, 50)).toBe(0);
    expect(arrivalsDue(0, 1e6, 0, 50)).toBe(0);
  });

  it('refuses a bad rate or burst', () => {
    expect(() => arrivalsDue(-1, 0, 0, 1)).toThrow(/ratePerSecond/);
    expect(() => arrivalsDue(Number.NaN, 0, 0, 1)).toThrow(/ratePerSecond/);
    expect(() => arrivalsDue(Number.POSITIVE_INFINITY, 0, 0, 1)).toThrow(/ratePerSecond/);
    expect(() => arrivalsDue(1, 0, 0, 0)).toThrow(/maxBurst/);
    expect(() => arrivalsDue(1, 0, 0, 1.5)).toThrow(/maxBurst/);
  });
});

describe('shuffled', () => {
  it('permutes without losing or inventing an item, the same way for the same seed', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const a = shuffled(items, seededRandom(13));
    expect([...a].sort((x, y) => x - y)).toEqual(items);
    expect(a).not.toEqual(items);
    expect(shuffled(items, seededRandom(13))).toEqual(a);
    expect(items[0]).toBe(0); // the input is left alone
  });

  it('puts each item first about equally often', () => {
    const random = seededRandom(7);
    const first = [0, 0, 0, 0];
    for (let i = 0; i < 8000; i++) first[shuffled([0, 1, 2, 3], random)[0] as number]++;
    // 2000 expected each; 4.5 standard deviations (√(8000·¼·¾) ≈ 39) either side.
    for (const n of first) expect(Math.abs(n - 2000)).toBeLessThan(175);
  });
});
