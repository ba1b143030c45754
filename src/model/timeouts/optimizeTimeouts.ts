import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { brentRoot } from '../numeric/brent.js';
import {
  bestSingleTimeout,
  geometricPoints,
  type SingleTimeoutOptimum,
} from './bestSingleTimeout.js';
import { ceilingTimeout } from './ceilingTimeout.js';
import type { AttemptCost, LatencyDistribution } from './LatencyDistribution.js';
import { linearCost } from './linearCost.js';
import { singleTimeout } from './singleTimeout.js';

/** A node of the Optimizer's search tree: a timeout, E from it on, and its earlier candidates. */
export interface TimeoutNode {
  /** The timeout (s). The root is t_z. */
  readonly t: number;
  /** The expected latency (s) of a call starting at this timeout and following the path up. */
  readonly E: number;
  /** Candidate earlier timeouts (each < t), one per local minimum of E in it, ascending. */
  readonly children: readonly TimeoutNode[];
}

/** Options of {@link optimizeTimeouts}. */
export interface OptimizeTimeoutsOptions {
  /** Timeouts in the sequence, t_z included (integer 1 to 64). */
  readonly depth: number;
  /**
   * The ceiling t_z (s), the timeout repeated last; default {@link ceilingTimeout}.
   * @default ceilingTimeout of the latency law
   */
  readonly tz?: number;
  /**
   * g(t); default {@link linearCost}() (g = 0).
   * @default linearCost() (g = 0)
   */
  readonly cost?: AttemptCost;
  /**
   * Seeds of the root search per level (integer ≥ 2), default 32.
   * @default 32
   */
  readonly seeds?: number;
  /**
   * Most nodes the tree may hold before the search gives up (default 100,000).
   * @default 100_000
   */
  readonly maxNodes?: number;
}

/** The Optimizer's answer. */
export interface OptimizedTimeouts {
  /** t_0 < … < t_z (s), ending at `tz`; shorter than `depth` when no earlier timeout helps. */
  readonly sequence: readonly number[];
  /** E_0 (s), the expected latency of the sequence. */
  readonly E0: number;
  /** E_n (s) for every element of the sequence. */
  readonly E: readonly number[];
  /** The ceiling used (s). */
  readonly tz: number;
  /** The best single timeout repeated until success, for comparison. */
  readonly single: SingleTimeoutOptimum;
  /** The whole search tree, rooted at t_z, for display. */
  readonly tree: TimeoutNode;
}

/** Default seeds per level of the root search. */
export const DEFAULT_SEEDS = 32;
/** Candidate roots closer than this (relative) are one root. */
const DUPLICATE_TOLERANCE = 1e-6;
/** |q| below this fraction of its terms' size counts as 0 (no sign): rounding, not a crossing. */
const SIGN_DEADBAND = 1e-9;
/** Root tolerance of Brent's method, relative to the bracket's upper end. */
const ROOT_TOLERANCE = 1e-10;

/**
 * The Optimizer (docs/design.md "Timeouts"): the sequence t_0 < … < t_z with the least expected
 * latency E_0 for a given ceiling t_z, found by working backwards from t_z.
 *
 * Given t_(i+1) and E_(i+1), E_i(t) = a(t) + b(t) E_(i+1) has dE_i/dt = (F̄ + g'∫f − E_(i+1) f)/∫f,
 * so its interior minima are the roots of q(t) = E_(i+1) f(t) − F̄(t) − g'(t) ∫f where q turns
 * from + to − (the DESIGN's E_(i+1) = (F̄ + g'∫f)/f, multiplied through by f so that it stays
 * finite where f vanishes). q is evaluated at `seeds` geometrically spaced points over
 * [minObserved, maxObserved] below t_(i+1) and at t_(i+1); each +/− pair of neighbours brackets a
 * root, refined by Brent's method to 1e-10 relative; roots within 1e-6 relative are one. Each
 * root is a child node, expanded in turn, until the sequence has `depth` timeouts: about one
 * branch per mode of the law. Roots where q turns from − to + are maxima of E_i and are
 * skipped; two roots closer than the seed spacing can be missed.
 *
 * The answer is the node with the least E, read back up to t_z. Usually a leaf at full depth;
 * when a level has no interior minimum, or its best minimum costs more than skipping it (the
 * infimum is then at a boundary: a timeout so short it is free and useless, or one merging
 * with the next), the sequence is shorter than `depth`, since the extra timeout could only
 * match, not beat, the shorter sequence. Ties go to the longer sequence.
 * @example
 * ```ts
 * const law = mixtureLatency([
 *   { weight: 0.7, distribution: lognormalLatency({ median: 0.1, sigma: 0.25 }) },
 *   { weight: 0.3, distribution: lognormalLatency({ median: 0.5, sigma: 0.25 }) },
 * ]);
 * const { sequence, E0, single } = optimizeTimeouts(law, { depth: 4, tz: 1 });
 * ```
 */
export function optimizeTimeouts(
  distribution: LatencyDistribution,
  options: Readonly<OptimizeTimeoutsOptions>,
): OptimizedTimeouts {
  const { depth } = options;
  if (!(Number.isInteger(depth) && depth >= 1 && depth <= 64)) {
    throw new InvalidArgumentError(`depth should be an integer from 1 to 64, got ${depth}`);
  }
  const seedCount = options.seeds ?? DEFAULT_SEEDS;
  if (!(Number.isInteger(seedCount) && seedCount >= 2 && seedCount <= 100_000)) {
    throw new InvalidArgumentError(`seeds should be an integer from 2 to 100000, got ${seedCount}`);
  }
  const maxNodes = options.maxNodes ?? 100_000;
  if (!(Number.isInteger(maxNodes) && maxNodes >= 1)) {
    throw new InvalidArgumentError(`maxNodes should be a positive integer, got ${maxNodes}`);
  }
  const cost = options.cost ?? linearCost();
  const tz = options.tz ?? ceilingTimeout(distribution);
  if (!(Number.isFinite(tz) && tz > 0)) {
    throw new InvalidArgumentError(`tz should be a positive finite number of seconds, got ${tz}`);
  }
  const { mass, minObserved, maxObserved } = distribution;
  if (!(mass > 0)) throw new InvalidArgumentError(`the latency law has no mass (∫f = ${mass})`);
  if (!(minObserved > 0 && maxObserved >= minObserved && Number.isFinite(maxObserved))) {
    throw new InvalidArgumentError(
      `the latency law's observed range should be positive and finite, got [${minObserved}, ${maxObserved}]`,
    );
  }
  const rootE = singleTimeout(distribution, tz, cost).E;
  if (!Number.isFinite(rootE)) {
    throw new InvalidArgumentError(
      `tz = ${tz} s is below every latency: no attempt could complete`,
    );
  }

  // F̄, f and g'·∫f at the seeds do not depend on the node: compute them once.
  const seeds = geometricPoints(minObserved, maxObserved, seedCount);
  const seedSurvival = new Float64Array(seedCount);
  const seedDensity = new Float64Array(seedCount);
  const seedCost = new Float64Array(seedCount);
  for (let k = 0; k < seedCount; k++) {
    const t = seeds[k] as number;
    seedSurvival[k] = distribution.survival(t);
    seedDensity[k] = distribution.density(t);
    seedCost[k] = cost.dg(t) * mass;
  }
  const sign = (E: number, survival: number, density: number, marginal: number): number => {
    const q = E * density - survival - marginal;
    const size = SIGN_DEADBAND * (E * density + survival + Math.abs(marginal));
    return q > size ? 1 : q < -size ? -1 : 0;
  };

  /** The interior minima of E_i(t) = a(t) + b(t)·E over t < upper, ascending. */
  const earlierTimeouts = (upper: number, E: number): number[] => {
    const q = (t: number) =>
      E * distribution.density(t) - distribution.survival(t) - cost.dg(t) * mass;
    const roots: number[] = [];
    let plusAt = Number.NaN; // the last point where q > 0, if no q < 0 came after it
    const consider = (t: number, s: number) => {
      if (s > 0) plusAt = t;
      else if (s < 0 && !Number.isNaN(plusAt)) {
        const root = brentRoot(q, plusAt, t, ROOT_TOLERANCE * t).root;
        const previous = roots[roots.length - 1];
        const distinct = previous === undefined || root - previous > DUPLICATE_TOLERANCE * root;
        if (distinct && root < upper * (1 - DUPLICATE_TOLERANCE)) roots.push(root);
        plusAt = Number.NaN;
      }
    };
    for (let k = 0; k < seedCount && (seeds[k] as number) < upper; k++) {
      consider(
        seeds[k] as number,
        sign(E, seedSurvival[k] as number, seedDensity[k] as number, seedCost[k] as number),
      );
    }
    consider(
      upper,
      sign(E, distribution.survival(upper), distribution.density(upper), cost.dg(upper) * mass),
    );
    return roots;
  };

  let nodes = 1;
  let best = { E: rootE, length: 1, path: [tz], Es: [rootE] };
  const expand = (t: number, E: number, path: number[], Es: number[]): TimeoutNode => {
    const children: TimeoutNode[] = [];
    if (path.length < depth) {
      for (const earlier of earlierTimeouts(t, E)) {
        if (++nodes > maxNodes) {
          throw new InvalidArgumentError(
            `the timeout tree grew past maxNodes = ${maxNodes} nodes (depth ${depth}, ${seedCount} seeds): lower depth or seeds`,
          );
        }
        const { a, b } = singleTimeout(distribution, earlier, cost);
        const earlierE = a + b * E;
        const earlierPath = [earlier, ...path];
        const earlierEs = [earlierE, ...Es];
        if (earlierE < best.E || (earlierE === best.E && earlierPath.length > best.length)) {
          best = { E: earlierE, length: earlierPath.length, path: earlierPath, Es: earlierEs };
        }
        children.push(expand(earlier, earlierE, earlierPath, earlierEs));
      }
    }
    return { t, E, children };
  };
  const tree = expand(tz, rootE, [tz], [rootE]);
  return {
    sequence: best.path,
    E0: best.E,
    E: best.Es,
    tz,
    single: bestSingleTimeout(distribution, cost, { points: 4 * seedCount, upper: tz }),
    tree,
  };
}
