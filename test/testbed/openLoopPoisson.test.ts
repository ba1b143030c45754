import { afterEach, describe, expect, it, vi } from 'vitest';
import { seededRandom } from '../../src/model/random.js';
import { openLoopPoisson } from '../../src/testbed/load/openLoopPoisson.js';
import { poissonCheck } from '../../src/testbed/load/poissonCheck.js';
import { poissonSendTimes } from '../../src/testbed/load/poissonSendTimes.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Runs the generator under fake timers until it resolves (bounded). */
async function runFake<T>(promise: Promise<T>, maxMs: number): Promise<T> {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  for (let t = 0; t < maxMs && !settled; t += 50) await vi.advanceTimersByTimeAsync(50);
  expect(settled, `the generator did not finish within ${maxMs} ms of fake time`).toBe(true);
  return promise;
}

describe('poissonSendTimes', () => {
  it('draws the same stream for the same seed, ascending, inside the duration', () => {
    const a = poissonSendTimes(100, 10_000, seededRandom(3));
    const b = poissonSendTimes(100, 10_000, seededRandom(3));
    expect([...a]).toEqual([...b]);
    for (let i = 1; i < a.length; i++) expect(a[i] as number).toBeGreaterThan(a[i - 1] as number);
    expect(a[a.length - 1] as number).toBeLessThan(10_000);
    // 1000 expected; a Poisson count has standard deviation √1000 ≈ 32.
    expect(Math.abs(a.length - 1000)).toBeLessThan(4 * Math.sqrt(1000));
  });

  it('refuses a bad rate', () => {
    expect(() => poissonSendTimes(-1, 1000, seededRandom(1))).toThrow(/rate/);
    expect(poissonSendTimes(0, 1000, seededRandom(1))).toHaveLength(0);
  });
});

describe('poissonCheck', () => {
  it('passes exponential gaps and fails regular or bursty ones', () => {
    const poisson = poissonCheck(poissonSendTimes(200, 20_000, seededRandom(9)));
    expect(poisson.poisson, poisson.verdict).toBe(true);
    expect(Math.abs(poisson.cv - 1)).toBeLessThan(poisson.tolerance);
    const regular = poissonCheck(Array.from({ length: 500 }, (_, i) => i * 10));
    expect(regular.poisson).toBe(false);
    expect(regular.verdict).toMatch(/too regular/);
    // Bursts: groups of ten sends at one instant, the way a starved timer loop catches up.
    const bursty = poissonCheck(Array.from({ length: 500 }, (_, i) => Math.floor(i / 10) * 100));
    expect(bursty.poisson).toBe(false);
    expect(bursty.verdict).toMatch(/bursty/);
  });
});

describe('openLoopPoisson', () => {
  it('sends every request at its intended time, none late, at the drawn rate (fake timers)', async () => {
    vi.useFakeTimers();
    const sends: number[] = [];
    const report = await runFake(
      openLoopPoisson({
        rate: 200,
        durationS: 10,
        seed: 4,
        now: () => Date.now(),
        send: async () => {
          sends.push(Date.now());
          return true;
        },
      }),
      12_000,
    );
    const drawn = poissonSendTimes(200, 10_000, seededRandom(4));
    expect(report.intended).toBe(drawn.length);
    expect(report.sent).toBe(drawn.length);
    expect(report.late).toBe(0);
    expect(report.achievedRate).toBeCloseTo(drawn.length / 10, 10);
    expect(report.achieved.poisson, report.achieved.verdict).toBe(true);
    expect(report.window.succeeded).toBe(drawn.length);
  });

  it('is never blocked by outstanding responses (sends that never answer)', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const report = await runFake(
      openLoopPoisson({
        rate: 300,
        durationS: 5,
        seed: 8,
        now: () => Date.now(),
        send: () => {
          calls++;
          return new Promise<boolean>(() => {}); // a server that never answers
        },
      }),
      6_000,
    );
    expect(calls).toBe(report.intended);
    expect(report.sent).toBe(report.intended);
    expect(report.inFlight).toBe(report.intended);
    expect(report.late).toBe(0);
    expect(report.achieved.poisson, report.achieved.verdict).toBe(true);
  });

  it('times latency from the intended send time and counts the requests sent in the window', async () => {
    vi.useFakeTimers();
    let index = 0;
    const report = await runFake(
      openLoopPoisson({
        rate: 100,
        durationS: 4,
        seed: 2,
        now: () => Date.now(),
        window: { fromS: 1, toS: 3 },
        batches: 4,
        graceS: 1,
        // Every other request fails; every answer takes 250 ms; one in ten throws.
        send: () => {
          const i = index++;
          return new Promise<boolean>((resolve, reject) =>
            setTimeout(
              () => (i % 10 === 9 ? reject(new Error('reset')) : resolve(i % 2 === 0)),
              250,
            ),
          );
        },
      }),
      6_000,
    );
    const { window } = report;
    expect(window.finished).toBe(window.succeeded + window.failed + window.errors);
    // Every request sent in the window answered (250 ms is well inside the run).
    expect(window.finished).toBe(window.intended);
    expect(window.unfinished).toBe(0);
    // Four half-second batches (by send time), every request in one of them.
    expect(window.batchFinished).toHaveLength(4);
    expect(window.batchFinished.reduce((a, b) => a + b, 0)).toBe(window.finished);
    expect(window.batchSucceeded.reduce((a, b) => a + b, 0)).toBe(window.succeeded);
    for (const n of window.batchFinished) expect(n).toBeGreaterThan(0);
    expect(window.succeeded).toBeGreaterThan(0);
    expect(window.failed).toBeGreaterThan(0);
    expect(window.errors).toBeGreaterThan(0);
    // Fake timers fire on whole milliseconds: a send starts < 1 ms after its fractional time.
    expect(window.latency.p50).toBeGreaterThanOrEqual(0.25);
    expect(window.latency.max).toBeLessThan(0.252);
    // The window ended long before the run did: no drain.
    expect(report.drainS).toBe(0);
  });

  it('drains: keeps sending after the run until the window’s slow requests end', async () => {
    vi.useFakeTimers();
    // Every fourth request fails after 1.5 s, the others succeed after 10 ms.
    const slow = (i: number) => i % 4 === 0;
    const report = await runFake(
      openLoopPoisson({
        rate: 100,
        durationS: 2,
        seed: 6,
        now: () => Date.now(),
        graceS: 5,
        send: (i) =>
          new Promise<boolean>((resolve) =>
            setTimeout(() => resolve(!slow(i)), slow(i) ? 1_500 : 10),
          ),
      }),
      8_000,
    );
    const { window } = report;
    const drawn = poissonSendTimes(100, 7_000, seededRandom(6));
    const inWindow = [...drawn].filter((t) => t < 2_000).length;
    const slowInWindow = Array.from({ length: inWindow }, (_, i) => i).filter(slow).length;
    // The population is exactly the requests sent in [0, 2 s), every one followed to its end.
    expect(window.intended).toBe(inWindow);
    expect(window.unfinished).toBe(0);
    expect(window.finished).toBe(inWindow);
    expect(window.failed).toBe(slowInWindow);
    expect(window.succeeded).toBe(inWindow - slowInWindow);
    // The old count misses the slow failures sent in the last 1.5 s.
    expect(window.answeredInWindow.failed).toBeLessThan(slowInWindow);
    expect(window.answeredInWindow.failed / window.answeredInWindow.finished).toBeLessThan(
      window.failed / window.finished,
    );
    // The load went on during the drain (about 1.5 s of fake time), on the same schedule.
    expect(report.sent).toBeGreaterThan(inWindow);
    expect(report.drainS).toBeGreaterThan(1.4);
    expect(report.drainS).toBeLessThan(1.6);
    expect(report.sent).toBe([...drawn].filter((t) => t <= 1_000 * (2 + report.drainS)).length);
  });

  it('gives up after the grace and counts the window’s stragglers as unfinished', async () => {
    vi.useFakeTimers();
    const slow = (i: number) => i % 4 === 0;
    const report = await runFake(
      openLoopPoisson({
        rate: 100,
        durationS: 2,
        seed: 6,
        now: () => Date.now(),
        graceS: 0.5,
        send: (i) =>
          new Promise<boolean>((resolve) =>
            setTimeout(() => resolve(!slow(i)), slow(i) ? 1_500 : 10),
          ),
      }),
      4_000,
    );
    const { window } = report;
    const slowInWindow = Array.from({ length: window.intended }, (_, i) => i).filter(slow).length;
    // Sent after about 1 s, a slow request ends after the 2.5 s the drain may last.
    expect(window.unfinished).toBeGreaterThan(0);
    expect(window.failed + window.unfinished).toBe(slowInWindow);
    expect(window.finished + window.unfinished).toBe(window.intended);
    expect(report.drainS).toBeCloseTo(0.5, 2);
  });

  it('ends every stream’s drain together when the caller says so', async () => {
    vi.useFakeTimers();
    // Two streams load one system: a slow one (every request takes 1 s) and a fast one (10 ms).
    // The fast one's window ends at once; it must go on sending until the slow one's has.
    const drainEnd = new AbortController();
    let open = 2;
    const onWindowEnded = () => {
      open--;
      if (open === 0) drainEnd.abort();
    };
    const stream = (seed: number, delayMs: number) =>
      openLoopPoisson({
        rate: 100,
        durationS: 1,
        seed,
        now: () => Date.now(),
        graceS: 5,
        endDrain: drainEnd.signal,
        onWindowEnded,
        send: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), delayMs)),
      });
    const [slow, fast] = await runFake(Promise.all([stream(1, 1_000), stream(2, 10)]), 4_000);
    for (const r of [slow, fast]) {
      expect(r?.window.unfinished).toBe(0);
      expect(r?.window.finished).toBe(r?.window.intended);
    }
    // The fast stream kept its load on through the slow one's drain (about 1 s of fake time).
    expect(fast?.drainS).toBeGreaterThan(0.9);
    expect(fast?.sent).toBeGreaterThan((fast?.window.intended ?? 0) + 50);
    expect(fast?.drainS).toBeCloseTo(slow?.drainS ?? Number.NaN, 2);
  });

  it('refuses a window beyond the run or a bad grace', () => {
    const send = async () => true;
    expect(() =>
      openLoopPoisson({ rate: 1, durationS: 2, seed: 1, send, window: { fromS: 1, toS: 3 } }),
    ).toThrow(/toS ≤ durationS/);
    expect(() => openLoopPoisson({ rate: 1, durationS: 2, seed: 1, send, graceS: -1 })).toThrow(
      /graceS/,
    );
  });

  it('keeps sending on a real event loop while every response is pending', async () => {
    const report = await openLoopPoisson({
      rate: 400,
      durationS: 0.5,
      seed: 1,
      send: () => new Promise<boolean>(() => {}),
    });
    expect(report.sent).toBe(report.intended);
    expect(report.inFlight).toBe(report.sent);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const report = await openLoopPoisson({
      rate: 100,
      durationS: 60,
      seed: 1,
      signal: controller.signal,
      send: async () => true,
    });
    expect(report.aborted).toBe(true);
    expect(report.sent).toBeLessThan(report.intended);
  });
});
