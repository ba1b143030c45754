import { describe, expect, it } from 'vitest';
import { DEFAULT_XDS_LIMITS, xdsLimits } from '../../src/xds/XdsLimits.js';

describe('xdsLimits', () => {
  it('fills in the documented defaults', () => {
    expect(xdsLimits()).toEqual({
      maxConcurrentStreams: 100,
      maxStreams: 1000,
      maxRequestBytes: 4 * 1024 * 1024,
      maxResourceNames: 10_000,
      nackLogIntervalMs: 60_000,
      nackLinesPerInterval: 5,
    });
    expect(xdsLimits({ maxStreams: 3, maxResourceNames: undefined } as never)).toEqual({
      ...DEFAULT_XDS_LIMITS,
      maxStreams: 3,
    });
  });

  it('refuses a limit that is not a whole number ≥ 1, naming it', () => {
    expect(() => xdsLimits({ maxStreams: 0 })).toThrow(
      'limits.maxStreams should be a whole number ≥ 1, got 0',
    );
    expect(() => xdsLimits({ maxRequestBytes: 1.5 })).toThrow(RangeError);
    expect(() => xdsLimits({ maxConcurrentStreams: Number.POSITIVE_INFINITY })).toThrow(
      /maxConcurrentStreams/,
    );
    expect(() => xdsLimits({ nackLogIntervalMs: -1 })).toThrow(
      'limits.nackLogIntervalMs should be a number ≥ 0, got -1',
    );
    expect(xdsLimits({ nackLogIntervalMs: 0 }).nackLogIntervalMs).toBe(0);
  });
});
