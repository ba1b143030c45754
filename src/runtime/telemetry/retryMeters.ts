import type * as Api from '@opentelemetry/api';
import type { AttemptOutcome } from '../../policy/retry/AttemptOutcome.js';
import type { GiveUpReason, RetryDecision } from '../../policy/retry/RetryPolicy.js';

/** The OpenTelemetry metrics every difftry client records, by name. */
export const RETRY_METRICS = Object.freeze({
  /** Attempts ended, by `difftry.class` and `difftry.outcome` (success, status, grpc, timeout, error). */
  attempts: 'difftry.client.attempts',
  /** Retries decided, by `difftry.class`. */
  retries: 'difftry.client.retries',
  /** Calls that gave up, by `difftry.class` and `difftry.give_up.reason` (limit, budget, …). */
  giveUps: 'difftry.client.give_ups',
});

/** The counters of one meter provider. */
export interface RetryMeters {
  attemptEnded(className: string, outcome: AttemptOutcome['kind'], decision: RetryDecision): void;
  gaveUp(className: string, reason: GiveUpReason): void;
}

let cached: { provider: Api.MeterProvider; meters: RetryMeters } | undefined;

const byProvider = new WeakMap<Api.MeterProvider, RetryMeters>();

/**
 * The counters on `provider` (the application's global one, or a host's own), made once per
 * provider: one that is registered later gets counters of its own.
 */
export function retryMeters(provider: Api.MeterProvider): RetryMeters {
  if (cached?.provider === provider) return cached.meters;
  const known = byProvider.get(provider);
  if (known !== undefined) {
    cached = { provider, meters: known };
    return known;
  }
  const meter = provider.getMeter('difftry');
  const attempts = meter.createCounter(RETRY_METRICS.attempts, {
    description: 'Attempts made by difftry clients, by class and outcome',
    unit: '{attempt}',
  });
  const retries = meter.createCounter(RETRY_METRICS.retries, {
    description: 'Retries difftry decided to make, by class',
    unit: '{retry}',
  });
  const giveUps = meter.createCounter(RETRY_METRICS.giveUps, {
    description: 'Calls that failed and were not retried again, by class and reason',
    unit: '{call}',
  });
  const gaveUp = (className: string, reason: GiveUpReason) =>
    giveUps.add(1, { 'difftry.class': className, 'difftry.give_up.reason': reason });
  const meters: RetryMeters = {
    attemptEnded(className, outcome, decision) {
      attempts.add(1, { 'difftry.class': className, 'difftry.outcome': outcome });
      if (decision.retry) retries.add(1, { 'difftry.class': className });
      else if (decision.reason !== 'success') gaveUp(className, decision.reason);
    },
    gaveUp,
  };
  cached = { provider, meters };
  byProvider.set(provider, meters);
  return meters;
}
