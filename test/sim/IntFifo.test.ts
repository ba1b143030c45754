import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntFifo } from '../../src/sim/engine/IntFifo.js';

describe('IntFifo', () => {
  it('returns -1 when empty', () => {
    const fifo = new IntFifo(1);
    expect(fifo.shift()).toBe(-1);
    expect(fifo.peek()).toBe(-1);
  });

  it('behaves like an array queue across wrap-around and growth', () => {
    const operation = fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.constant(null));
    fc.assert(
      fc.property(
        fc.array(operation, { maxLength: 400 }),
        fc.integer({ min: 1, max: 8 }),
        (ops, capacity) => {
          const fifo = new IntFifo(capacity);
          const reference: number[] = [];
          for (const op of ops) {
            if (op === null) {
              expect(fifo.shift()).toBe(reference.length > 0 ? reference.shift() : -1);
            } else {
              fifo.push(op);
              reference.push(op);
            }
            expect(fifo.size).toBe(reference.length);
            expect(fifo.peek()).toBe(reference.length > 0 ? reference[0] : -1);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
