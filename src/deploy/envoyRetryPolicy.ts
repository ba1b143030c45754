import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import { protoDuration } from './durations.js';
import type { ClassHop, MeshPlan } from './meshPlan.js';

/** The longest wait a server's Retry-After may ask for (the runtime's maxPushbackMs). */
const MAX_PUSHBACK_S = 60;

/**
 * Envoy's `retry_back_off` for a backoff. Envoy draws every delay uniformly from
 * [0, min(base · (2ⁿ − 1)..., max)] ("fully jittered exponential"), so only some laws map:
 * `exponential` keeps its base and cap; `constant` (d) becomes base = max = 2d and `random`
 * (mean μ) base = max = 2μ, which keep the mean delay of every retry (d or μ) but not its spread.
 */
export function envoyBackOff(backoff: BackoffDescription): {
  base_interval: string;
  max_interval: string;
} {
  switch (backoff.kind) {
    case 'exponential':
      return {
        base_interval: protoDuration(backoff.baseMs),
        max_interval: protoDuration(backoff.maxMs ?? Math.max(backoff.baseMs * 10, backoff.baseMs)),
      };
    case 'constant':
      return {
        base_interval: protoDuration(2 * backoff.delayMs || 1),
        max_interval: protoDuration(2 * backoff.delayMs || 1),
      };
    case 'random':
      return {
        base_interval: protoDuration(2 * backoff.meanMs || 1),
        max_interval: protoDuration(2 * backoff.meanMs || 1),
      };
  }
}

/**
 * Envoy's `retry_on`: the transport failures, the retried statuses (`retriable-status-codes`)
 * and the retried gRPC codes (which proxyless gRPC clients read, and Envoy applies to gRPC).
 */
export function envoyRetryOn(plan: MeshPlan): string {
  return [...plan.retryConditions, 'retriable-status-codes', ...plan.grpcRetryCodes].join(',');
}

/**
 * The route action of one class at one hop: its cluster and retry policy. With k = 0 there is no
 * `retry_policy` at all (Envoy then makes one attempt, and proxyless gRPC refuses a policy of 0
 * retries), and a per-try timeout becomes the route's `timeout`, the only attempt's. Otherwise
 * the route's `timeout` is `0s`, none: Envoy ends a request at 15 s when a route sets no
 * timeout, which would cut a hop's attempts short of the k + 1 the analysis counts (Istio turns
 * it off alike). gRPC clients read neither.
 */
export function envoyRouteAction(
  plan: MeshPlan,
  hop: ClassHop,
  cluster: string,
): Record<string, unknown> {
  if (hop.retries > 0) {
    return { cluster, timeout: NO_ROUTE_TIMEOUT, retry_policy: envoyRetryPolicy(plan, hop) };
  }
  return {
    cluster,
    timeout:
      hop.perTryTimeoutMs === undefined ? NO_ROUTE_TIMEOUT : protoDuration(hop.perTryTimeoutMs),
  };
}

/** A route `timeout` of zero: Envoy's way to say none (its default is 15 s). */
const NO_ROUTE_TIMEOUT = '0s';

/** The retry policy of one class at one hop (k > 0; see {@link envoyRouteAction}). */
export function envoyRetryPolicy(plan: MeshPlan, hop: ClassHop): Record<string, unknown> {
  return {
    retry_on: envoyRetryOn(plan),
    retriable_status_codes: [...plan.retryStatuses],
    num_retries: hop.retries,
    ...(hop.perTryTimeoutMs !== undefined && {
      per_try_timeout: protoDuration(hop.perTryTimeoutMs),
    }),
    retry_back_off: envoyBackOff(hop.backoff),
    rate_limited_retry_back_off: {
      reset_headers: [{ name: 'retry-after', format: 'SECONDS' }],
      max_interval: `${MAX_PUSHBACK_S}s`,
    },
  };
}
