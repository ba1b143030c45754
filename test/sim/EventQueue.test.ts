import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../src/sim/engine/EventQueue.js';

/** Pops everything as [time, kind, payload] triples. */
function drain(queue: EventQueue): [number, number, number][] {
  const out: [number, number, number][] = [];
  while (queue.size > 0) {
    out.push([queue.peekTime(), queue.peekKind(), queue.peekPayload()]);
    queue.pop();
  }
  return out;
}

describe('EventQueue', () => {
  it('pops in time order', () => {
    const queue = new EventQueue();
    queue.push(3, 0, 30);
    queue.push(1, 1, 10);
    queue.push(2, 2, 20);
    expect(drain(queue)).toEqual([
      [1, 1, 10],
      [2, 2, 20],
      [3, 0, 30],
    ]);
  });

  it('is FIFO among equal times', () => {
    const queue = new EventQueue(2);
    for (let i = 0; i < 20; i++) queue.push(i % 2 === 0 ? 5 : 1, 0, i);
    const payloads = drain(queue).map(([, , payload]) => payload);
    expect(payloads).toEqual([
      1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
    ]);
  });

  it('reports Infinity when empty and ignores pop on empty', () => {
    const queue = new EventQueue(1);
    expect(queue.peekTime()).toBe(Number.POSITIVE_INFINITY);
    queue.pop();
    expect(queue.size).toBe(0);
    queue.push(0, 7, -1.5);
    expect(queue.peekKind()).toBe(7);
    expect(queue.peekPayload()).toBe(-1.5);
    queue.clear();
    expect(queue.size).toBe(0);
  });

  it('grows past its initial capacity', () => {
    const queue = new EventQueue(1);
    for (let i = 1000; i > 0; i--) queue.push(i, 0, i);
    expect(queue.size).toBe(1000);
    expect(drain(queue).map(([time]) => time)).toEqual(
      Array.from({ length: 1000 }, (_, i) => i + 1),
    );
  });

  it('rejects NaN times and bad capacities', () => {
    expect(() => new EventQueue().push(Number.NaN, 0, 0)).toThrow(RangeError);
    expect(() => new EventQueue(0)).toThrow(RangeError);
  });

  it('matches a sort-based reference on any sequence of pushes and pops', () => {
    // A push is [time, kind, payload]; null is a pop. Few distinct times force many ties.
    const operation = fc.oneof(
      { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 0, max: 8 }), fc.nat(5), fc.double()) },
      { weight: 2, arbitrary: fc.constant(null) },
    );
    fc.assert(
      fc.property(
        fc.array(operation, { maxLength: 300 }),
        fc.boolean(),
        (operations, fractional) => {
          const queue = new EventQueue(1);
          const reference: { time: number; sequence: number; kind: number; payload: number }[] = [];
          let sequence = 0;
          const popped: unknown[] = [];
          const expected: unknown[] = [];
          for (const op of operations) {
            if (op === null) {
              if (reference.length > 0) {
                reference.sort((a, b) => a.time - b.time || a.sequence - b.sequence);
                const first = reference.shift();
                expected.push([first?.time, first?.kind, first?.payload]);
              }
              if (queue.size > 0)
                popped.push([queue.peekTime(), queue.peekKind(), queue.peekPayload()]);
              queue.pop();
            } else {
              const time = fractional ? op[0] / 3 : op[0];
              queue.push(time, op[1], op[2]);
              reference.push({ time, sequence: sequence++, kind: op[1], payload: op[2] });
            }
            expect(queue.size).toBe(reference.length);
          }
          reference.sort((a, b) => a.time - b.time || a.sequence - b.sequence);
          for (const event of reference) expected.push([event.time, event.kind, event.payload]);
          popped.push(...drain(queue));
          expect(popped).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the order when pops follow one another unread (the deferred refill of the root)', () => {
    // A push is [time, payload]; 'pop' removes the earliest event without reading it first, so
    // consecutive pops, a pop then a push, and a read after a pop all meet a vacant root.
    const operation = fc.oneof(
      { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 0, max: 6 }), fc.nat(1000)) },
      { weight: 2, arbitrary: fc.constant('pop' as const) },
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 300 }), (operations) => {
        const queue = new EventQueue(1);
        const reference: { time: number; sequence: number; payload: number }[] = [];
        let sequence = 0;
        for (const op of operations) {
          if (op === 'pop') {
            reference.sort((a, b) => a.time - b.time || a.sequence - b.sequence);
            reference.shift();
            queue.pop();
          } else {
            queue.push(op[0], 0, op[1]);
            reference.push({ time: op[0], sequence: sequence++, payload: op[1] });
          }
          expect(queue.size).toBe(reference.length);
        }
        reference.sort((a, b) => a.time - b.time || a.sequence - b.sequence);
        const expected = reference.map((event) => [event.time, 0, event.payload]);
        expect(drain(queue), JSON.stringify(operations)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
