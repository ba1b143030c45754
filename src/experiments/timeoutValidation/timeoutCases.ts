/**
 * The networks of the per-try timeout validation (scripts/validate-timeouts-model.ts,
 * docs/validation-timeouts-model.md) and of its test: one service with a per-try timeout, a
 * two-level call a → b with timeouts on the calls into b, hotelReservation's call-graph form
 * with a timeout at every hop, and routing networks with a timeout at every hop: a chain a → b,
 * a cycle a ⇄ b and hotelReservation's routing form.
 */

import { builtinExample, parseNetwork, toNetworkModel } from '../../config/index.js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { BackoffDescription } from '../../model/backoff/BackoffDescription.js';
import { meanRetryDelays } from '../../model/backoff/meanRetryDelays.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { fixedTimeout, type TimeoutStrategy } from '../../policy/timeouts/TimeoutStrategy.js';

/** The single service's capacity μ, requests/s (a mean service time of 10 ms). */
export const TIMED_CAPACITY = 100;

/**
 * The timeout validation's settings and one-service grid (scripts/validate-timeouts-model.ts),
 * shared with scripts/timeout-flank.ts, which re-runs its points on the same substreams.
 */
export const TIMEOUT_VALIDATION = Object.freeze({
  seed: 2028,
  backoff: { kind: 'random', meanMs: 2000 } as BackoffDescription,
  run: { replications: 10, warmup: 50, duration: 200, window: 50 },
  queues: [50, 10] as const,
  retries: [5, 1] as const,
  rhos: [0.3, 0.5, 0.7, 0.9, 1.1, 1.3, 1.5] as const,
  /** Mean service times. */
  timeouts: [2, 3, 5, 10, 20] as const,
});

/**
 * A class of these cases, with the mean backoffs of the validation's retry delay (what a network
 * file's `backoff:` gives; the orbit law reads the orbit's sojourn from them, the simulator is
 * handed the backoff itself).
 */
function timedClass(name: string, retryLimit: number): NetworkModel['classes'][number] {
  return {
    name,
    retryLimit,
    meanBackoffs: meanRetryDelays(TIMEOUT_VALIDATION.backoff, Math.max(retryLimit, 1)),
  };
}

/** One service with a per-try timeout, as {@link timedService} builds it. */
export interface TimedServiceCase {
  /** m, the most requests in the system. */
  readonly queue: number;
  /** k, the retry limit of its one class. */
  readonly retries: number;
  /** Nominal load γ/μ (no retries). */
  readonly rho: number;
  /** The timeout T in mean service times (μT). */
  readonly timeoutServiceTimes: number;
}

/**
 * One M/M/1/m service (μ = 100/s, the `mm1m` law) with one class `users` arriving at ρ·μ and
 * retried k times, every attempt abandoned by its client after T = x/μ seconds.
 */
export function timedService(c: TimedServiceCase): NetworkModel {
  return {
    classes: [timedClass('users', c.retries)],
    services: [
      {
        name: 'api',
        capacity: TIMED_CAPACITY,
        queue: c.queue,
        model: 'mm1m',
        arrivals: [c.rho * TIMED_CAPACITY],
        retryLimits: [c.retries],
        routes: [],
        timeouts: [c.timeoutServiceTimes / TIMED_CAPACITY],
      },
    ],
  };
}

/** The two-level call a → b, as {@link twoLevel} builds it. */
export interface TwoLevelCase {
  /** Nominal load of b, γ/μ_b. */
  readonly rho: number;
  /** The timeout of a call into b, ms. */
  readonly timeoutMs: number;
  /** b's queue m. */
  readonly queue: number;
}

/**
 * a (μ = 1000/s, m = 50) calls b (μ = 100/s) once per request; two classes, high and low, with
 * k = (5, 1) at both hops, arriving at a in the ratio 1 : 5 with γ = ρ·μ_b in all; every call
 * into b is abandoned after `timeoutMs` (calls into a have no timeout). `mm1m` at both.
 */
export function twoLevel(c: TwoLevelCase): NetworkModel {
  const gamma = c.rho * TIMED_CAPACITY;
  const timeout = c.timeoutMs / 1000;
  return {
    mode: 'calls',
    classes: [
      { name: 'high', retryLimit: 5 },
      { name: 'low', retryLimit: 1 },
    ],
    services: [
      {
        name: 'a',
        capacity: 1000,
        queue: 50,
        model: 'mm1m',
        arrivals: [gamma / 6, (5 * gamma) / 6],
        retryLimits: [5, 1],
        routes: [],
        calls: [{ to: 1, n: 1 }],
      },
      {
        name: 'b',
        capacity: TIMED_CAPACITY,
        queue: c.queue,
        model: 'mm1m',
        arrivals: [0, 0],
        retryLimits: [5, 1],
        routes: [],
        timeouts: [timeout, timeout],
      },
    ],
  };
}

/**
 * hotelReservation, call-graph form (`hotel-calls`), k = (5, 1), γ_high = 50 and the given γ_low
 * at the frontend (its ρ₀ = (50 + γ_low)/143), with a per-try timeout of `timeoutMs` on every
 * call at every hop, for both classes (`toNetworkModel`'s `timeoutMs`, as
 * `difftry analyze --timeout` gives it). The file's `mixed` law.
 */
export function hotelCallsWithTimeout(gammaLow: number, timeoutMs: number): NetworkModel {
  return hotelWithTimeout('hotel-calls', gammaLow, timeoutMs);
}

/** A routing network of two services, as {@link routingChain} and {@link routingCycle} build it. */
export interface RoutingPairCase {
  /** Nominal load (no retries) of the service named in the builder. */
  readonly rho: number;
  /** The per-try timeout of every attempt at both services, ms. */
  readonly timeoutMs: number;
  /** m of both services (a's is 50 in the chain). */
  readonly queue: number;
}

const TWO_CLASSES = [timedClass('high', 5), timedClass('low', 1)];

/**
 * A routing chain a → b: a (μ = 200/s, m = 50) passes 80 % of what gets through to b
 * (μ = 100/s, m = `queue`); classes high and low, k = (5, 1) at both hops, arriving at a in the
 * ratio 1 : 5 with γ such that b's nominal load is ρ (γ = ρ · 100 / 0.8); every attempt at
 * either service is abandoned after `timeoutMs`. `mm1m` at both.
 */
export function routingChain(c: RoutingPairCase): NetworkModel {
  const gamma = (c.rho * TIMED_CAPACITY) / 0.8;
  const timeout = c.timeoutMs / 1000;
  return {
    classes: TWO_CLASSES,
    services: [
      {
        name: 'a',
        capacity: 200,
        queue: 50,
        model: 'mm1m',
        arrivals: [gamma / 6, (5 * gamma) / 6],
        retryLimits: [5, 1],
        routes: [{ to: 1, p: 0.8 }],
        timeouts: [timeout, timeout],
      },
      {
        name: 'b',
        capacity: TIMED_CAPACITY,
        queue: c.queue,
        model: 'mm1m',
        arrivals: [0, 0],
        retryLimits: [5, 1],
        routes: [],
        timeouts: [timeout, timeout],
      },
    ],
  };
}

/**
 * A routing cycle a ⇄ b: a and b (μ = 100/s, m = `queue`) each; a passes 60 % of what gets
 * through to b, b 30 % of its back to a (a request visits a 1/(1 − 0.18) ≈ 1.22 times); classes
 * high and low, k = (5, 1) at both, arriving at a in the ratio 1 : 5 with γ such that a's
 * nominal load is ρ; every attempt at either service is abandoned after `timeoutMs`. `mm1m`.
 */
export function routingCycle(c: RoutingPairCase): NetworkModel {
  const gamma = c.rho * TIMED_CAPACITY * (1 - 0.6 * 0.3);
  const timeout = c.timeoutMs / 1000;
  const pair = (name: string, to: number, p: number, arrivals: readonly number[]) => ({
    name,
    capacity: TIMED_CAPACITY,
    queue: c.queue,
    model: 'mm1m' as const,
    arrivals,
    retryLimits: [5, 1],
    routes: [{ to, p }],
    timeouts: [timeout, timeout],
  });
  return {
    classes: TWO_CLASSES,
    services: [pair('a', 1, 0.6, [gamma / 6, (5 * gamma) / 6]), pair('b', 0, 0.3, [0, 0])],
  };
}

/**
 * hotelReservation, routing form (`hotel`), k = (5, 1), γ_high = 50 and the given γ_low at the
 * frontend, with a per-try timeout of `timeoutMs` on every attempt at every service, both
 * classes (`toNetworkModel`'s `timeoutMs`). The file's `mixed` law.
 */
export function hotelRoutingWithTimeout(gammaLow: number, timeoutMs: number): NetworkModel {
  return hotelWithTimeout('hotel', gammaLow, timeoutMs);
}

/** A built-in hotelReservation form at γ = (50, γ_low), k = (5, 1), a timeout at every hop. */
function hotelWithTimeout(example: string, gammaLow: number, timeoutMs: number): NetworkModel {
  const { fileName, text } = builtinExample(example);
  const spec = parseNetwork(text, fileName);
  return toNetworkModel(
    {
      ...spec,
      services: spec.services.map((s) =>
        s.name === 'frontend' ? { ...s, arrivals: { ...s.arrivals, low: gammaLow } } : s,
      ),
    },
    { retries: { high: 5, low: 1 }, timeoutMs },
  );
}

/**
 * The simulator's `timeouts` option for a network whose model carries per-try timeouts: a fixed
 * timeout for the calls into each service that has one, the same for every class (the
 * simulator's timeout strategy is per hop), so the simulation runs exactly what is analysed.
 * @throws RangeError when a service's classes have different timeouts.
 */
export function simulatorTimeouts(
  network: NetworkModel,
): (serviceIndex: number) => TimeoutStrategy | undefined {
  const perService = network.services.map((service) => {
    const given = (service.timeouts ?? []).filter((t) => t !== undefined);
    if (given.length === 0) return undefined;
    const first = given[0] as number;
    if (given.length !== network.classes.length || given.some((t) => t !== first)) {
      throw new InvalidArgumentError(
        `service ${service.name}: the simulator times out every class of a hop alike, got ${JSON.stringify(service.timeouts)}`,
      );
    }
    return first * 1000;
  });
  return (serviceIndex) => {
    const ms = perService[serviceIndex];
    return ms === undefined ? undefined : fixedTimeout(ms);
  };
}
