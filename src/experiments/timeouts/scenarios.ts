import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { type RandomSource, seededRandom } from '../../model/random.js';
import { CompensatedSum } from './CompensatedSum.js';
import { standardNormal } from './standardNormal.js';

/**
 * The eight latency scenarios of the timeout evaluation, in the paper's order.
 * @see the issue "Adaptive sequential timeouts", section "The evaluation".
 */
export const TIMEOUT_SCENARIO_NAMES = [
  'stable',
  'random-walk',
  'slow-increase',
  'fast-increase',
  'slow-decrease',
  'fast-decrease',
  'spikes',
  'dips',
] as const;

/** One of {@link TIMEOUT_SCENARIO_NAMES}. */
export type TimeoutScenarioName = (typeof TIMEOUT_SCENARIO_NAMES)[number];

/** The scenarios' names as the tables print them. */
export const TIMEOUT_SCENARIO_LABELS: Readonly<Record<TimeoutScenarioName, string>> = {
  stable: 'Stable',
  'random-walk': 'Random walk',
  'slow-increase': 'Slow increase',
  'fast-increase': 'Fast increase',
  'slow-decrease': 'Slow decrease',
  'fast-decrease': 'Fast decrease',
  spikes: 'Spikes',
  dips: 'Dips',
};

/**
 * A scenario: the server's noise-free latency for each request of a run, indexed by request
 * (not by virtual time), so a request's attempts all see the same curve value and the
 * Time Fraction's denominator is exactly Σ curve(i) over the measured requests.
 */
export interface TimeoutScenario {
  readonly name: TimeoutScenarioName;
  /** Requests in the run, the initialisation included. */
  readonly requests: number;
  /**
   * The first `initRequests` requests initialise the strategy: they are sent and observed but
   * not measured.
   */
  readonly initRequests: number;
  /** Noise-free latency of request `index` (0-based, `0 ≤ index < requests`), seconds. */
  curve(index: number): number;
}

/** Options of {@link timeoutScenario}. */
export interface TimeoutScenarioOptions {
  /** Requests in the run, the initialisation included; default 2 000. */
  readonly requests?: number;
  /** Initialisation requests (sent, observed, not measured); default 200. */
  readonly initRequests?: number;
  /** Seed of the random walk (the other curves are deterministic); default 1. */
  readonly seed?: number;
}

/** Defaults of {@link timeoutScenario}: the 2 000 requests with 200 to initialise. */
export const TIMEOUT_SCENARIO_DEFAULTS = { requests: 2000, initRequests: 200, seed: 1 } as const;

/** The low and high latency levels the ramps, steps, spikes and dips move between, seconds. */
export const LATENCY_LEVELS = { low: 0.1, high: 0.4 } as const;

/**
 * The random walk: x₀ = mean, xᵢ₊₁ = xᵢ + reversion·(mean − xᵢ) + volatility·Zᵢ with Zᵢ standard
 * normal (a discrete Ornstein–Uhlenbeck process, one step per request), floored at `floor`
 * seconds. Its stationary standard deviation is volatility/√(1 − (1 − reversion)²) ≈ 0.014 s,
 * so the floor is a guard that practically never binds.
 */
export const RANDOM_WALK = { mean: 0.125, volatility: 0.01, reversion: 0.3, floor: 0.01 } as const;

/**
 * Spikes and dips: in every `period` requests, counted from request 0, the last `width` are at
 * the other level (a spike to 0.4 s from 0.1 s, a dip to 0.1 s from 0.4 s). With the defaults,
 * one excursion falls in the initialisation and nine in the measured requests.
 */
export const EXCURSIONS = { period: 200, width: 20 } as const;

/**
 * Builds one scenario's latency curve (seconds per request). `i₀` is the first measured request
 * and `u = (i − i₀)/(n − i₀ − 1)` runs from 0 to 1 across the measured requests; the
 * initialisation sees the level the measured run starts from.
 *
 * - `stable`: 0.1 s throughout.
 * - `random-walk`: {@link RANDOM_WALK}, seeded.
 * - `slow-increase` / `slow-decrease`: linear ramps 0.1 → 0.4 s / 0.4 → 0.1 s over the measured
 *   requests (exactly 0.1 and 0.4 at their ends).
 * - `fast-increase` / `fast-decrease`: a step 0.1 → 0.4 s / 0.4 → 0.1 s at the measured run's
 *   midpoint, from one request to the next.
 * - `spikes` / `dips`: periodic excursions, {@link EXCURSIONS}, 0.1 s ⇄ 0.4 s.
 *
 * @throws RangeError on an unknown name or bad sizes.
 * @example
 * ```ts
 * const ramp = timeoutScenario('slow-increase');
 * ramp.curve(200); // 0.1
 * ramp.curve(1999); // 0.4
 * ```
 */
export function timeoutScenario(
  name: TimeoutScenarioName,
  options: Readonly<TimeoutScenarioOptions> = {},
): TimeoutScenario {
  const requests = options.requests ?? TIMEOUT_SCENARIO_DEFAULTS.requests;
  const initRequests = options.initRequests ?? TIMEOUT_SCENARIO_DEFAULTS.initRequests;
  const seed = options.seed ?? TIMEOUT_SCENARIO_DEFAULTS.seed;
  if (!(Number.isSafeInteger(requests) && requests >= 2)) {
    throw new InvalidArgumentError(`requests should be an integer of at least 2, got ${requests}`);
  }
  if (!(Number.isSafeInteger(initRequests) && initRequests >= 0 && initRequests < requests - 1)) {
    throw new InvalidArgumentError(
      `initRequests should be an integer in [0, requests − 2] = [0, ${requests - 2}], got ${initRequests}`,
    );
  }
  if (!isTimeoutScenarioName(name)) {
    throw new InvalidArgumentError(
      `scenario should be one of ${TIMEOUT_SCENARIO_NAMES.join(', ')}, got "${String(name)}"`,
    );
  }
  const values = new Float64Array(requests);
  const { low, high } = LATENCY_LEVELS;
  const span = requests - initRequests - 1;
  const position = (i: number) => Math.max(0, i - initRequests) / span;
  const midpoint = initRequests + Math.floor((requests - initRequests) / 2);
  const inExcursion = (i: number) => i % EXCURSIONS.period >= EXCURSIONS.period - EXCURSIONS.width;
  switch (name) {
    case 'stable':
      values.fill(low);
      break;
    case 'random-walk':
      fillRandomWalk(values, seededRandom(seed, 1));
      break;
    case 'slow-increase':
      for (let i = 0; i < requests; i++) values[i] = low + (high - low) * position(i);
      break;
    case 'slow-decrease':
      for (let i = 0; i < requests; i++) values[i] = high - (high - low) * position(i);
      break;
    case 'fast-increase':
      for (let i = 0; i < requests; i++) values[i] = i < midpoint ? low : high;
      break;
    case 'fast-decrease':
      for (let i = 0; i < requests; i++) values[i] = i < midpoint ? high : low;
      break;
    case 'spikes':
      for (let i = 0; i < requests; i++) values[i] = inExcursion(i) ? high : low;
      break;
    case 'dips':
      for (let i = 0; i < requests; i++) values[i] = inExcursion(i) ? low : high;
      break;
  }
  return {
    name,
    requests,
    initRequests,
    curve(index) {
      const value = values[index];
      if (value === undefined || !Number.isInteger(index)) {
        throw new InvalidArgumentError(
          `request index should be an integer in [0, ${requests}), got ${index}`,
        );
      }
      return value;
    },
  };
}

/** Whether `text` names a scenario. */
export function isTimeoutScenarioName(text: string): text is TimeoutScenarioName {
  return (TIMEOUT_SCENARIO_NAMES as readonly string[]).includes(text);
}

/** Σ curve(i) over the measured requests (i ≥ initRequests), seconds: the oracle's total time. */
export function measuredCurveIntegral(scenario: TimeoutScenario): number {
  const sum = new CompensatedSum();
  for (let i = scenario.initRequests; i < scenario.requests; i++) sum.add(scenario.curve(i));
  return sum.value;
}

function fillRandomWalk(values: Float64Array, random: RandomSource): void {
  const { mean, volatility, reversion, floor } = RANDOM_WALK;
  let level: number = mean;
  for (let i = 0; i < values.length; i++) {
    values[i] = level;
    level = Math.max(
      floor,
      level + reversion * (mean - level) + volatility * standardNormal(random),
    );
  }
}
