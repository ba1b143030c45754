import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type MultiplierPiece,
  piecewiseLinearMultiplier,
} from '../../../src/sim/network/RateMultiplier.js';

const step = (start: number, end: number, value: number): MultiplierPiece => ({
  start,
  end,
  from: value,
  to: value,
});

describe('piecewiseLinearMultiplier', () => {
  it('is 1 outside its pieces and holds a step on [start, end)', () => {
    const m = piecewiseLinearMultiplier([step(100, 110, 0.3)]);
    expect(m.at(0)).toBe(1);
    expect(m.at(99.999)).toBe(1);
    expect(m.at(100)).toBe(0.3);
    expect(m.at(109.999)).toBe(0.3);
    expect(m.at(110)).toBe(1);
    expect(m.at(1e6)).toBe(1);
  });

  it('ramps linearly from `from` at the start towards `to`, then gives way at the end', () => {
    const m = piecewiseLinearMultiplier([{ start: 0, end: 300, from: 1, to: 2 }]);
    expect(m.at(0)).toBe(1);
    expect(m.at(150)).toBeCloseTo(1.5, 12);
    expect(m.at(299)).toBeCloseTo(2 - 1 / 300, 12);
    expect(m.at(300)).toBe(1);
  });

  it('joins a ramp up and a ramp down, and a step that holds for good', () => {
    const m = piecewiseLinearMultiplier([
      { start: 150, end: 300, from: 2, to: 0.5 },
      { start: 0, end: 150, from: 0.5, to: 2 },
      { start: 400, end: Number.POSITIVE_INFINITY, from: 3, to: 3 },
    ]);
    expect(m.at(75)).toBeCloseTo(1.25, 12);
    expect(m.at(150)).toBe(2);
    expect(m.at(225)).toBeCloseTo(1.25, 12);
    expect(m.at(350)).toBe(1);
    expect(m.at(400)).toBe(3);
    expect(m.at(1e9)).toBe(3);
  });

  it('integrates in closed form: steps as rectangles, ramps as trapezoids', () => {
    const m = piecewiseLinearMultiplier([
      step(100, 110, 0.3),
      { start: 200, end: 300, from: 1, to: 3 },
    ]);
    expect(m.integral(0, 100)).toBe(100);
    expect(m.integral(95, 115)).toBeCloseTo(5 + 3 + 5, 12);
    // ∫ over [200, 250] of 1 + (t − 200)/50 = 50 + 25.
    expect(m.integral(200, 250)).toBeCloseTo(75, 12);
    expect(m.integral(0, 400)).toBeCloseTo(100 + 3 + 90 + 200 + 100, 9);
    expect(m.integral(10, 10)).toBe(0);
    expect(m.integral(20, 10)).toBe(0);
  });

  it('advances work through a capacity change: new speed from the moment of the change', () => {
    // One second of work started at t = 0 on a server that halves its speed at t = 0.5: half the
    // work is done by then, the other half takes a second at speed 0.5.
    const halved = piecewiseLinearMultiplier([step(0.5, Number.POSITIVE_INFINITY, 0.5)]);
    expect(halved.advance(0, 1)).toBe(1.5);
    // Capacity × 0.3 on [100, 110): 1 s at speed 1, then 1 s of work at speed 0.3.
    const drop = piecewiseLinearMultiplier([step(100, 110, 0.3)]);
    expect(drop.advance(99, 2)).toBeCloseTo(100 + 1 / 0.3, 12);
    // Work that outlasts the drop: 3 units of work during it, the rest at full speed after.
    expect(drop.advance(100, 5)).toBeCloseTo(112, 12);
    expect(drop.advance(50, 0)).toBe(50);
  });

  it('skips a stretch at 0 and gives Infinity when the multiplier stays 0 for good', () => {
    const outage = piecewiseLinearMultiplier([step(10, 20, 0)]);
    expect(outage.advance(5, 5)).toBe(10);
    expect(outage.advance(5, 6)).toBe(21);
    expect(outage.advance(12, 1)).toBe(21);
    const off = piecewiseLinearMultiplier([step(10, Number.POSITIVE_INFINITY, 0)]);
    expect(off.advance(0, 10)).toBe(10);
    expect(off.advance(0, 10.5)).toBe(Number.POSITIVE_INFINITY);
  });

  it('inverts a ramp exactly: the quadratic root of its trapezoid', () => {
    // m(t) = 1 + t/100 on [0, 100): ∫_0^x = x + x²/200 = 10 ⇒ x = 100(√1.2 − 1).
    const ramp = piecewiseLinearMultiplier([{ start: 0, end: 100, from: 1, to: 2 }]);
    expect(ramp.advance(0, 10)).toBeCloseTo(100 * (Math.sqrt(1.2) - 1), 12);
    // A ramp down to 0: ∫ over [0, 10) of 1 − t/10 is 5, so 5 units end exactly at 10.
    const down = piecewiseLinearMultiplier([{ start: 0, end: 10, from: 1, to: 0 }]);
    expect(down.advance(0, 5)).toBeCloseTo(10, 9);
    expect(down.advance(0, 6)).toBeCloseTo(11, 9);
  });

  it('advance is the inverse of integral (property)', () => {
    const piece = fc
      .record({
        start: fc.double({ min: 0, max: 100, noNaN: true }),
        width: fc.double({ min: 0.01, max: 50, noNaN: true }),
        from: fc.double({ min: 0, max: 5, noNaN: true }),
        to: fc.double({ min: 0, max: 5, noNaN: true }),
      })
      .map(({ start, width, from, to }) => ({ start, end: start + width, from, to }));
    const disjoint = fc
      .array(piece, { maxLength: 5 })
      .map((pieces) =>
        pieces
          .sort((a, b) => a.start - b.start)
          .filter((p, i, all) => all.slice(0, i).every((q) => q.end <= p.start)),
      );
    fc.assert(
      fc.property(
        disjoint,
        fc.double({ min: 0, max: 200, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (pieces, start, amount) => {
          const m = piecewiseLinearMultiplier(pieces);
          const end = m.advance(start, amount);
          expect(end).toBeGreaterThanOrEqual(start);
          expect(m.integral(start, end)).toBeCloseTo(amount, 6);
        },
      ),
      { seed: 12, numRuns: 300 },
    );
  });

  it('refuses overlapping pieces and values out of range', () => {
    expect(() => piecewiseLinearMultiplier([step(0, 10, 1), step(5, 20, 2)])).toThrow(
      /should not overlap/,
    );
    expect(() => piecewiseLinearMultiplier([step(-1, 10, 1)])).toThrow(RangeError);
    expect(() => piecewiseLinearMultiplier([step(10, 10, 1)])).toThrow(RangeError);
    expect(() => piecewiseLinearMultiplier([step(0, 10, -0.5)])).toThrow(/≥ 0/);
    expect(() => piecewiseLinearMultiplier([]).advance(0, -1)).toThrow(RangeError);
  });
});
