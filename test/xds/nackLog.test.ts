import { describe, expect, it } from 'vitest';
import { NackLog } from '../../src/xds/NackLog.js';

// Which NACKs of a stream get a log line, in fake time: the first, a new detail, one an interval
// later; every other one is counted, and the count is said with the next line or at the end.

const LDS = 'type.googleapis.com/envoy.config.listener.v3.Listener';
const CDS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';

/** A NackLog on a clock the test moves. */
function fakeTime(options: { intervalMs?: number; linesPerInterval?: number } = {}) {
  let now = 1_000;
  const log = new NackLog({ now: () => now, ...options });
  return {
    log,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('NackLog', () => {
  it('logs the first NACK of a flood and counts the rest until the stream ends', () => {
    const { log, advance } = fakeTime({ intervalMs: 60_000 });
    expect(log.onNack(LDS, 'bad listener')).toEqual({ log: true });
    const decisions = Array.from({ length: 199 }, () => {
      advance(10);
      return log.onNack(LDS, 'bad listener');
    });
    expect(decisions.every((d) => d.log === false)).toBe(true);
    expect(log.onEnd()).toEqual([{ typeUrl: LDS, count: 199, sinceMs: 1_010 }]);
    // Said once: the end reports nothing more.
    expect(log.onEnd()).toEqual([]);
  });

  it('logs the same NACK again an interval later, with the count of those in between', () => {
    const { log, advance } = fakeTime({ intervalMs: 60_000 });
    log.onNack(LDS, 'bad listener');
    advance(1_000);
    log.onNack(LDS, 'bad listener');
    advance(1_000);
    log.onNack(LDS, 'bad listener');
    advance(58_000); // 60 s after the logged one
    expect(log.onNack(LDS, 'bad listener')).toEqual({
      log: true,
      repeats: { typeUrl: LDS, count: 2, sinceMs: 2_000 },
    });
    expect(log.onEnd()).toEqual([]);
  });

  it('logs a NACK whose detail changed at once, and counts per type', () => {
    const { log } = fakeTime();
    expect(log.onNack(LDS, 'v1 is bad').log).toBe(true);
    expect(log.onNack(LDS, 'v1 is bad').log).toBe(false);
    expect(log.onNack(CDS, 'v1 is bad').log).toBe(true); // another type: its own first
    expect(log.onNack(LDS, 'v2 is bad')).toEqual({
      log: true,
      repeats: { typeUrl: LDS, count: 1, sinceMs: 1_000 },
    });
    expect(log.onNack(CDS, 'v1 is bad').log).toBe(false);
    expect(log.onEnd()).toEqual([{ typeUrl: CDS, count: 1, sinceMs: 1_000 }]);
  });

  it('logs at most linesPerInterval lines per interval, however the details change', () => {
    const { log, advance } = fakeTime({ intervalMs: 10_000, linesPerInterval: 3 });
    const logged = Array.from({ length: 100 }, (_, i) => log.onNack(LDS, `detail ${i}`).log);
    expect(logged.filter(Boolean)).toHaveLength(3);
    expect(log.onEnd()).toEqual([{ typeUrl: LDS, count: 97, sinceMs: 1_000 }]);
    advance(10_000);
    expect(log.onNack(LDS, 'detail 100').log).toBe(true);
  });

  it('counts a type first seen over the budget, and says so at the end', () => {
    const { log } = fakeTime({ linesPerInterval: 1 });
    expect(log.onNack(LDS, 'a').log).toBe(true);
    expect(log.onNack(CDS, 'b').log).toBe(false);
    expect(log.onEnd()).toEqual([{ typeUrl: CDS, count: 1, sinceMs: 1_000 }]);
  });

  it('checks its options', () => {
    const now = () => 0;
    expect(() => new NackLog({ now, intervalMs: -1 })).toThrow(RangeError);
    expect(() => new NackLog({ now, intervalMs: Number.NaN })).toThrow(/intervalMs/);
    expect(() => new NackLog({ now, linesPerInterval: 0 })).toThrow(/linesPerInterval/);
    expect(() => new NackLog({ now, linesPerInterval: 1.5 })).toThrow(RangeError);
  });
});
