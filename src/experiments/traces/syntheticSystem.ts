/**
 * The small system whose traces scripts/traces-memory.ts writes (src/experiments/traces/
 * syntheticOtlp.ts): its classes, services and retries, and what is true of it — the figures
 * `difftry from-traces` should find however large the file.
 */
/** One request class of the synthetic system. */
export interface SyntheticClass {
  readonly name: string;
  /** Poisson arrivals at `frontend`, requests per second. */
  readonly rate: number;
  /** The probability `cart` turns one attempt of the class away (503). */
  readonly rejectProbability: number;
}

/** The synthetic system: its classes, services and calls. */
export interface SyntheticSystem {
  readonly classes: readonly SyntheticClass[];
  /** Mean service time (seconds, exponential) of each service: `frontend`, `cart`, `catalog`, `db`. */
  readonly meanServiceSeconds: Readonly<Record<SyntheticService, number>>;
  /** The share of `frontend` requests that also call `catalog` (in parallel with `cart`). */
  readonly catalogShare: number;
  /** Retries `frontend` makes on a call to `cart` at most (per call). */
  readonly retryLimit: number;
  /** One-way network delay between a client span and its server span, seconds. */
  readonly networkDelaySeconds: number;
  /** How long a rejected attempt's server span lasts, seconds. */
  readonly rejectSeconds: number;
}

/** The services of the synthetic system. */
export type SyntheticService = 'frontend' | 'cart' | 'catalog' | 'db';

/** The system scripts/traces-memory.ts writes: four services at loads 0.2–0.4. */
export const SYNTHETIC_SYSTEM: SyntheticSystem = {
  classes: [
    { name: 'gold', rate: 40, rejectProbability: 0.02 },
    { name: 'bronze', rate: 60, rejectProbability: 0.1 },
  ],
  meanServiceSeconds: { frontend: 0.002, cart: 0.004, catalog: 0.005, db: 0.003 },
  catalogShare: 0.6,
  retryLimit: 3,
  networkDelaySeconds: 0.0001,
  rejectSeconds: 0.00005,
};

/** What the traces of a {@link SyntheticSystem} should let one infer. */
export interface SyntheticTruth {
  /** Arrivals at `frontend`, per class, requests per second. */
  readonly arrivals: Readonly<Record<string, number>>;
  /** Each service's capacity, 1 / mean service time, requests per second. */
  readonly capacities: Readonly<Record<SyntheticService, number>>;
  /** Mean attempts per call to `cart`, per class: 1 + p + … + p^limit. */
  readonly cartAttemptsPerCall: Readonly<Record<string, number>>;
  /** The call graph, one line per caller. */
  readonly callGraph: readonly string[];
}

/** The truth of `system`: its rates, capacities, retries and call graph. */
export function syntheticTruth(system: SyntheticSystem = SYNTHETIC_SYSTEM): SyntheticTruth {
  const capacities = Object.fromEntries(
    Object.entries(system.meanServiceSeconds).map(([name, mean]) => [name, 1 / mean]),
  ) as Record<SyntheticService, number>;
  const attempts = (p: number) => {
    let sum = 0;
    for (let k = 0; k <= system.retryLimit; k++) sum += p ** k;
    return sum;
  };
  return {
    arrivals: Object.fromEntries(system.classes.map((c) => [c.name, c.rate])),
    capacities,
    cartAttemptsPerCall: Object.fromEntries(
      system.classes.map((c) => [c.name, attempts(c.rejectProbability)]),
    ),
    callGraph: [
      `frontend → cart (every request), ${(system.catalogShare * 100).toFixed(0)} %: catalog, in parallel with cart`,
      'cart → db (every request it serves)',
    ],
  };
}
