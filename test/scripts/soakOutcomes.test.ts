// The soak's request bookkeeping (src/experiments/soak/soakOutcomes.ts): every ticket settles
// once, lost is sent minus settled, unexpected outcomes are counted per kind.
import { describe, expect, it } from 'vitest';
import { outcomeLabel, SoakLedger } from '../../src/experiments/soak/soakOutcomes.js';

describe('outcomeLabel', () => {
  it('names every outcome as the report counts it', () => {
    expect(outcomeLabel({ type: 'status', status: 503 })).toBe('503');
    expect(outcomeLabel({ type: 'cut', status: 200 })).toBe('cut');
    expect(outcomeLabel({ type: 'closed' })).toBe('closed');
    expect(outcomeLabel({ type: 'reset' })).toBe('reset');
    expect(outcomeLabel({ type: 'timeout' })).toBe('client timeout');
    expect(outcomeLabel({ type: 'error', code: 'ECONNREFUSED' })).toBe('error ECONNREFUSED');
  });
});

describe('SoakLedger', () => {
  const expected = { normal: ['200', '503'], hang: ['504'] };

  it('counts what was sent and how it ended, per kind, in declaration order', () => {
    const ledger = new SoakLedger(expected);
    const a = ledger.send('normal');
    const b = ledger.send('normal');
    const c = ledger.send('normal');
    const d = ledger.send('hang');
    ledger.settle(a, { type: 'status', status: 200 });
    ledger.settle(b, { type: 'status', status: 503 });
    ledger.settle(c, { type: 'status', status: 503 });
    ledger.settle(d, { type: 'status', status: 504 });
    const tally = ledger.tally();
    expect(tally.kinds.map(([name]) => name)).toEqual(['normal', 'hang']);
    expect(tally.kinds[0]?.[1]).toEqual({
      sent: 3,
      // most frequent first
      outcomes: [
        ['503', 2],
        ['200', 1],
      ],
      unexpected: 0,
      pending: 0,
    });
    expect(tally).toMatchObject({ sent: 4, settled: 4, pending: 0, unexpected: 0, duplicates: 0 });
  });

  it('counts a request never settled as pending (lost once the run has drained)', () => {
    const ledger = new SoakLedger(expected);
    ledger.send('normal');
    const settled = ledger.send('hang');
    ledger.settle(settled, { type: 'status', status: 504 });
    expect(ledger.pending).toBe(1);
    const tally = ledger.tally();
    expect(tally.pending).toBe(1);
    expect(tally.kinds[0]?.[1].pending).toBe(1);
    expect(tally.sent - tally.settled).toBe(1);
  });

  it('flags outcomes a kind does not expect', () => {
    const ledger = new SoakLedger(expected);
    ledger.settle(ledger.send('normal'), { type: 'reset' });
    ledger.settle(ledger.send('hang'), { type: 'timeout' });
    ledger.settle(ledger.send('hang'), { type: 'status', status: 504 });
    const tally = ledger.tally();
    expect(tally.unexpected).toBe(2);
    expect(tally.kinds[0]?.[1]).toMatchObject({ unexpected: 1, outcomes: [['reset', 1]] });
    expect(tally.kinds[1]?.[1].unexpected).toBe(1);
  });

  it('never lets a second settlement hide a lost request', () => {
    const ledger = new SoakLedger(expected);
    const a = ledger.send('normal');
    ledger.send('normal'); // never settled
    ledger.settle(a, { type: 'status', status: 200 });
    ledger.settle(a, { type: 'status', status: 200 });
    ledger.settle(999, { type: 'status', status: 200 });
    const tally = ledger.tally();
    expect(tally).toMatchObject({ sent: 2, settled: 1, pending: 1, duplicates: 2 });
    expect(tally.kinds[0]?.[1].outcomes).toEqual([['200', 1]]);
  });

  it('refuses an unknown kind and a kind expecting nothing', () => {
    const ledger = new SoakLedger(expected);
    expect(() => ledger.send('other')).toThrow(RangeError);
    expect(() => new SoakLedger({ none: [] })).toThrow(/none/);
  });

  it('conserves requests over any interleaving: sent = settled + pending', () => {
    const ledger = new SoakLedger(expected);
    const open: number[] = [];
    // A fixed pseudo-random walk of sends and settlements (a linear congruential sequence).
    let x = 12345;
    for (let i = 0; i < 2000; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      if (x % 3 !== 0 || open.length === 0) open.push(ledger.send(x % 2 === 0 ? 'normal' : 'hang'));
      else {
        const ticket = open.splice(x % open.length, 1)[0] as number;
        ledger.settle(ticket, { type: 'status', status: 200 });
      }
      const tally = ledger.tally();
      if (tally.sent !== tally.settled + tally.pending || tally.pending !== open.length) {
        throw new Error(`step ${i}: ${JSON.stringify(tally)} with ${open.length} open`);
      }
    }
  });
});

describe('SoakLedger.settle', () => {
  it('tells whether the outcome was expected, unexpected or a duplicate', () => {
    const ledger = new SoakLedger({ normal: ['200'] });
    const a = ledger.send('normal');
    expect(ledger.settle(a, { type: 'status', status: 200 })).toBe('expected');
    expect(ledger.settle(a, { type: 'status', status: 200 })).toBe('duplicate');
    expect(ledger.settle(ledger.send('normal'), { type: 'closed' })).toBe('unexpected');
  });
});
