import { describe, expect, it } from 'vitest';
import {
  REQUEST_OUTCOME,
  type RequestLog,
  tallyByAnswerTime,
  tallyBySendTime,
} from '../../src/testbed/load/windowTally.js';

const { pending, succeeded, failed, error } = REQUEST_OUTCOME;

/** A log from [intended ms, answered ms (NaN: pending), outcome] rows, in send order. */
function logOf(rows: readonly (readonly [number, number, number])[]): RequestLog {
  return {
    intendedMs: Float64Array.from(rows.map((r) => r[0])),
    answeredMs: Float64Array.from(rows.map((r) => r[1])),
    outcome: Uint8Array.from(rows.map((r) => r[2])),
  };
}

// A window [1000, 2000) ms. The rows are what a window with a short warm-up and slow failures
// looks like: a fast success and a slow failure sent before it, fast successes inside it, slow
// failures sent near its end that answer in the drain, one still pending, one after it.
const window = { fromMs: 1000, toMs: 2000 };
const log = logOf([
  [100, 300, succeeded], // warm-up, answered in warm-up: in neither
  [800, 1900, failed], // warm-up, answered in the window: answered count only
  [1000, 1010, succeeded], // sent at the window's opening: in (the window is [from, to))
  [1200, 1250, succeeded],
  [1400, 1450, error],
  [1600, 2900, failed], // sent in the window, answered in the drain: send-time count only
  [1800, 1820, succeeded],
  [1900, Number.NaN, pending], // sent in the window, never answered: unfinished
  [1999, 3500, failed], // sent just before the window closed, answered in the drain
  [2000, 2010, succeeded], // sent at toMs: out (the drain's)
  [2500, 2600, failed], // the drain's
]);

describe('tallyBySendTime', () => {
  it('counts the requests sent in [from, to), however late they answered', () => {
    const t = tallyBySendTime(log, window, 1);
    expect(t.requests).toBe(7);
    expect(t.unfinished).toBe(1);
    expect(t.finished).toBe(6);
    expect(t.succeeded).toBe(3);
    expect(t.failed).toBe(2);
    expect(t.errors).toBe(1);
    expect(t.finished).toBe(t.succeeded + t.failed + t.errors);
    expect(t.requests).toBe(t.finished + t.unfinished);
  });

  it('puts each request in the batch of its send time', () => {
    const t = tallyBySendTime(log, window, 4);
    // Batches of 250 ms: [1000, 1250) holds 1000 and 1200; [1250, 1500) 1400; [1500, 1750)
    // 1600; [1750, 2000) 1800 and 1999 (1900 is unfinished: in no batch).
    expect(t.batchFinished).toEqual([2, 1, 1, 2]);
    expect(t.batchSucceeded).toEqual([2, 0, 0, 1]);
  });

  it('records the successes’ latency from the intended send time', () => {
    const t = tallyBySendTime(log, window, 1);
    expect(t.histogram.totalCount).toBe(3);
    // 10, 50 and 20 ms, in microseconds (HdrHistogram keeps 3 significant digits).
    expect(t.histogram.minNonZeroValue).toBeCloseTo(10_000, -3);
    expect(t.histogram.maxValue).toBeCloseTo(50_000, -3);
  });

  it('refuses a bad window or batch count', () => {
    expect(() => tallyBySendTime(log, { fromMs: 5, toMs: 5 }, 1)).toThrow(RangeError);
    expect(() => tallyBySendTime(log, window, 0)).toThrow(/batches/);
    expect(() => tallyBySendTime(log, { fromMs: 0, toMs: Number.POSITIVE_INFINITY }, 2)).toThrow(
      /finite/,
    );
  });
});

describe('tallyByAnswerTime (the old count)', () => {
  it('counts the answers in [from, to), whenever sent: the warm-up’s in, the drain’s out', () => {
    const t = tallyByAnswerTime(log, window, 1);
    // 800 → 1900 failed, 1000, 1200, 1800 succeeded, 1400 error.
    expect(t.finished).toBe(5);
    expect(t.succeeded).toBe(3);
    expect(t.failed).toBe(1);
    expect(t.errors).toBe(1);
  });

  it('puts each answer in the batch of its answer time', () => {
    const t = tallyByAnswerTime(log, window, 4);
    // Answers at 1010 | 1250, 1450 | — | 1820, 1900.
    expect(t.batchFinished).toEqual([1, 2, 0, 2]);
    expect(t.batchSucceeded).toEqual([1, 1, 0, 1]);
  });

  it('undercounts a window whose slow failures answer after it, where the send-time count does not', () => {
    // Every third request fails after 700 ms, the others succeed in 5 ms; sends every 10 ms from
    // 0, window [0, 3000) with no warm-up before it: nothing sent earlier makes up for the
    // failures that answer after the window closes.
    const rows: [number, number, number][] = [];
    for (let i = 0; i < 400; i++) {
      const at = 10 * i;
      rows.push(i % 3 === 0 ? [at, at + 700, failed] : [at, at + 5, succeeded]);
    }
    const slow = logOf(rows);
    const w = { fromMs: 0, toMs: 3000 };
    const bySend = tallyBySendTime(slow, w, 1);
    const byAnswer = tallyByAnswerTime(slow, w, 1);
    // Sent in [0, 3000): i = 0 … 299, of which 100 fail.
    expect(bySend.requests).toBe(300);
    expect(bySend.failed).toBe(100);
    expect(bySend.failed / bySend.finished).toBeCloseTo(1 / 3, 12);
    // Answered in the window: failures sent before 2300 ms (77 of them), successes sent before
    // 2995 ms (200).
    expect(byAnswer.failed).toBe(77);
    expect(byAnswer.succeeded).toBe(200);
    expect(byAnswer.failed / byAnswer.finished).toBeLessThan(0.28);
  });
});
