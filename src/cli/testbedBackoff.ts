import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import { TESTBED_BACKOFF } from '../testbed/experiment/runValidity.js';
import { UsageError } from './UsageError.js';

/** The retry-delay flags `difftry testbed run` and `testbed fig5` share. */
export interface TestbedBackoffFlags {
  /** `--backoff-ms`: mean of a random (exponential) retry delay, ms. */
  readonly backoffMs?: number;
  /** `--backoff-base-ms`: Envoy's law, fully jittered exponential from this base, ms. */
  readonly backoffBaseMs?: number;
}

/** Envoy's default `retry_back_off.base_interval`, ms (its `max_interval` is 10 × the base). */
export const ENVOY_DEFAULT_BASE_MS = 25;

/**
 * Envoy's retry delay law from a base interval: the r-th retry waits a uniform draw from
 * [0, min(10 · base, base · 2^(r−1))] (Envoy's default base 25 ms, cap 10 × base). Over
 * `grpc-xds` the same base and cap reach gRPC as the route's `retry_back_off`, and gRPC applies
 * its own jitter (gRFC A6: × [0.8, 1.2] instead of [0, 1]).
 * @see Envoy's `config.route.v3.RetryPolicy.RetryBackOff` (route_components.proto); gRFC A6, A44
 */
export function envoyBackoff(baseMs: number): BackoffDescription {
  return { kind: 'exponential', baseMs, factor: 2, maxMs: 10 * baseMs, jitter: 'full' };
}

/**
 * The testbed's retry delay from its flags: `--backoff-base-ms B` gives {@link envoyBackoff}(B),
 * `--backoff-ms M` a random delay of mean M, and neither the testbed's default (random, mean
 * 500 ms: long against the services' work, the regime the analysis's independence assumption
 * describes).
 * @throws UsageError when both flags are given.
 */
export function testbedBackoff(flags: Readonly<TestbedBackoffFlags>): BackoffDescription {
  if (flags.backoffMs !== undefined && flags.backoffBaseMs !== undefined) {
    throw new UsageError(
      `give --backoff-ms (a random delay's mean, got ${flags.backoffMs}) or --backoff-base-ms (Envoy's exponential law from a base, got ${flags.backoffBaseMs}), not both`,
    );
  }
  if (flags.backoffBaseMs !== undefined) return envoyBackoff(flags.backoffBaseMs);
  if (flags.backoffMs !== undefined) return { kind: 'random', meanMs: flags.backoffMs };
  return TESTBED_BACKOFF;
}

/** The help line of `--backoff-base-ms`. */
export const BACKOFF_BASE_HELP = `Envoy's retry delay instead: uniform in [0, min(10·B, B·2^(r−1))] for the r-th retry (Envoy's default B = ${ENVOY_DEFAULT_BASE_MS}); over grpc-xds gRPC's own jitter, ×[0.8, 1.2]`;

/** The flag that gave a run its retry delay, as a command line names it; undefined for the default. */
export function backoffFlag(flags: Readonly<TestbedBackoffFlags>): string | undefined {
  if (flags.backoffBaseMs !== undefined) return `--backoff-base-ms ${flags.backoffBaseMs}`;
  if (flags.backoffMs !== undefined) return `--backoff-ms ${flags.backoffMs}`;
  return undefined;
}
