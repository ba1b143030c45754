import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gatewayDuration, protoDuration } from '../../../src/deploy/durations.js';

// GEP-2257's grammar, and the protobuf JSON mapping's for google.protobuf.Duration.
const GEP_2257 = /^([0-9]{1,5}(h|m|s|ms)){1,4}$/;
const PROTO_JSON = /^-?[0-9]+(\.[0-9]{1,9})?s$/;

/** A GEP-2257 duration back to milliseconds, by its grammar. */
function gepMs(text: string): number {
  const unit = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
  let total = 0;
  for (const [, n, u] of text.matchAll(/([0-9]+)(ms|h|m|s)/g)) {
    total += Number(n) * unit[u as keyof typeof unit];
  }
  return total;
}

describe('mesh durations', () => {
  it('writes protobuf JSON seconds', () => {
    expect(protoDuration(250)).toBe('0.25s');
    expect(protoDuration(1000)).toBe('1s');
    expect(protoDuration(0.5)).toBe('0.0005s');
    expect(protoDuration(0)).toBe('0s');
    expect(() => protoDuration(-1)).toThrow(RangeError);
  });

  it('writes GEP-2257 durations that never shorten a timeout', () => {
    expect(gatewayDuration(250)).toBe('250ms');
    expect(gatewayDuration(2000)).toBe('2s');
    expect(gatewayDuration(0.2)).toBe('1ms');
    expect(gatewayDuration(0)).toBe('0s');
    expect(gatewayDuration(123_456)).toBe('123s456ms');
    expect(() => gatewayDuration(Number.NaN)).toThrow(RangeError);
  });

  it('keeps to both grammars over any timeout below a day', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 86_400_000, noNaN: true }), (ms) => {
        const gep = gatewayDuration(ms);
        expect(gep).toMatch(GEP_2257);
        expect(gepMs(gep)).toBe(Math.ceil(ms));
        const proto = protoDuration(ms);
        expect(proto).toMatch(PROTO_JSON);
        expect(Math.abs(Number(proto.slice(0, -1)) * 1000 - ms)).toBeLessThan(1e-5);
      }),
    );
  });
});
