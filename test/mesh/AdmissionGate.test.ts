import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdmissionGate } from '../../src/mesh/AdmissionGate.js';

describe('AdmissionGate', () => {
  it('runs c, queues up to m in the system, rejects beyond, FIFO', () => {
    const gate = new AdmissionGate<string>(2, 4);
    expect(['a', 'b', 'c', 'd', 'e'].map((x) => gate.enter(x))).toEqual([
      'run',
      'run',
      'queued',
      'queued',
      'rejected',
    ]);
    expect(gate.inSystem).toBe(4);
    expect(gate.leave()).toBe('c');
    expect(gate.leave()).toBe('d');
    expect(gate.active).toBe(2);
    expect(gate.leave()).toBeUndefined();
    expect(gate.leave()).toBeUndefined();
    expect(gate.active).toBe(0);
    expect(() => gate.leave()).toThrow(RangeError);
  });

  it('cancels a queued item', () => {
    const gate = new AdmissionGate<number>(1, 3);
    gate.enter(1);
    gate.enter(2);
    gate.enter(3);
    expect(gate.cancel(2)).toBe(true);
    expect(gate.cancel(2)).toBe(false);
    expect(gate.leave()).toBe(3);
  });

  it('refuses bad sizes', () => {
    expect(() => new AdmissionGate(0, 5)).toThrow(/concurrency/);
    expect(() => new AdmissionGate(2, 1)).toThrow(/capacity/);
    expect(() => new AdmissionGate(1.5, 5)).toThrow(/concurrency/);
  });

  it('never holds more than m, never runs more than c, serves in arrival order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 6 }),
        fc.array(fc.boolean(), { maxLength: 200 }),
        (c, extra, ops) => {
          const gate = new AdmissionGate<number>(c, c + extra);
          let next = 0;
          const started: number[] = [];
          const queuedOrder: number[] = [];
          for (const arrive of ops) {
            if (arrive) {
              const id = next++;
              const admission = gate.enter(id);
              if (admission === 'run') started.push(id);
              if (admission === 'queued') queuedOrder.push(id);
            } else if (gate.active > 0) {
              const promoted = gate.leave();
              if (promoted !== undefined) {
                expect(promoted).toBe(queuedOrder.shift());
                started.push(promoted);
              }
            }
            expect(gate.active).toBeLessThanOrEqual(c);
            expect(gate.inSystem).toBeLessThanOrEqual(c + extra);
            expect(gate.queued).toBe(queuedOrder.length);
          }
        },
      ),
    );
  });
});
