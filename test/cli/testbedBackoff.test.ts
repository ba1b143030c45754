import { describe, expect, it } from 'vitest';
import {
  backoffFlag,
  ENVOY_DEFAULT_BASE_MS,
  envoyBackoff,
  testbedBackoff,
} from '../../src/cli/testbedBackoff.js';
import { fig5CommandLine } from '../../src/cli/testbedFig5Command.js';
import { UsageError } from '../../src/cli/UsageError.js';
import { envoyBackOff } from '../../src/deploy/envoyRetryPolicy.js';
import { createBackoff } from '../../src/model/backoff/Backoff.js';

describe('the testbed retry-delay flags', () => {
  it('defaults to a random delay of mean 500 ms', () => {
    expect(testbedBackoff({})).toEqual({ kind: 'random', meanMs: 500 });
    expect(backoffFlag({})).toBeUndefined();
  });

  it('--backoff-ms gives a random delay of that mean', () => {
    expect(testbedBackoff({ backoffMs: 120 })).toEqual({ kind: 'random', meanMs: 120 });
    expect(backoffFlag({ backoffMs: 120 })).toBe('--backoff-ms 120');
  });

  it('--backoff-base-ms gives Envoy’s law: full jitter under base·2^(r−1), capped at 10·base', () => {
    const law = testbedBackoff({ backoffBaseMs: ENVOY_DEFAULT_BASE_MS });
    expect(law).toEqual(envoyBackoff(25));
    expect(backoffFlag({ backoffBaseMs: 25 })).toBe('--backoff-base-ms 25');
    // The largest draw (random → 1) is the cap of each retry: 25, 50, 100, 200, 250, 250 ms
    // (Envoy: base_interval 25 ms, max_interval 10 × base).
    const top = createBackoff(law, () => 1 - Number.EPSILON);
    const caps = [1, 2, 3, 4, 5, 6].map((r) => Math.round(top.delayMs(r)));
    expect(caps).toEqual([25, 50, 100, 200, 250, 250]);
    // The smallest draw is 0: full jitter.
    expect(createBackoff(law, () => 0).delayMs(3)).toBe(0);
    // What the xDS routes serve gRPC for it: the same base and cap.
    expect(envoyBackOff(law)).toEqual({ base_interval: '0.025s', max_interval: '0.25s' });
  });

  it('refuses both flags at once, naming both values', () => {
    expect(() => testbedBackoff({ backoffMs: 500, backoffBaseMs: 25 })).toThrow(UsageError);
    expect(() => testbedBackoff({ backoffMs: 500, backoffBaseMs: 25 })).toThrow(
      /--backoff-ms .*got 500.*--backoff-base-ms .*got 25.*not both/,
    );
  });
});

describe('the command line a fig5 page names', () => {
  it('names every flag that changes the measurement, and no other', () => {
    expect(fig5CommandLine({})).toBe('difftry testbed fig5');
    expect(fig5CommandLine({ transport: 'http', out: 'x', json: true })).toBe(
      'difftry testbed fig5',
    );
    expect(
      fig5CommandLine({
        quick: true,
        transport: 'grpc-xds',
        duration: 80,
        limits: '4/1,4/4',
        backoffBaseMs: 25,
        seed: 9,
        sidecar: false,
      }),
    ).toBe(
      'difftry testbed fig5 --quick --transport grpc-xds --limits 4/1,4/4 --duration 80 --seed 9 --backoff-base-ms 25 --no-sidecar',
    );
  });
});
