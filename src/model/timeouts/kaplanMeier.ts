import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { LatencySample } from './LatencyDistribution.js';

/**
 * A weighted Kaplan–Meier estimate of a latency law from possibly censored samples: a step
 * survival function with a jump at each distinct uncensored latency.
 */
export interface KaplanMeierEstimate {
  /** Distinct uncensored latencies, ascending (s). */
  readonly times: Float64Array;
  /** The probability at each time, S(t−) − S(t); they sum to `mass`. */
  readonly masses: Float64Array;
  /** 1 − S after the last uncensored latency: below 1 when the largest samples are censored. */
  readonly mass: number;
  /** Smallest and largest latency of any sample, censored or not (s). */
  readonly minLatency: number;
  readonly maxLatency: number;
  /** Kish's effective number of uncensored samples, (Σw)² / Σw² over them. */
  readonly effectiveEvents: number;
  /** The step survival S(t) = P(latency > t) (1 at t below every sample). */
  survival(t: number): number;
}

/**
 * The weighted Kaplan–Meier estimator: S(t) = Π_{t_j ≤ t} (1 − d_j / n_j), with d_j the weight
 * of samples completing at t_j and n_j the weight still at risk (latency ≥ t_j). A censored
 * sample (a timed-out attempt) only says the latency exceeds its timeout: it stays at risk up to
 * there and then leaves without a jump, so timeouts do not bias the estimate, as dropping them
 * or counting them as completions would. At a tie, completions come before censorings.
 * @see E. L. Kaplan, P. Meier, "Nonparametric estimation from incomplete observations", JASA 53
 *   (1958).
 * @example
 * ```ts
 * kaplanMeier([{ latency: 1 }, { latency: 2, censored: true }, { latency: 3 }]).survival(2); // 0.5
 * ```
 */
export function kaplanMeier(samples: readonly LatencySample[]): KaplanMeierEstimate {
  const count = samples.length;
  if (count === 0) throw new InvalidArgumentError('a latency estimate needs at least one sample');
  const latency = new Float64Array(count);
  const weight = new Float64Array(count);
  const censored = new Uint8Array(count);
  let eventWeight = 0;
  let eventSquares = 0;
  for (let i = 0; i < count; i++) {
    const sample = samples[i] as LatencySample;
    const t = sample.latency;
    const w = sample.weight ?? 1;
    if (!(Number.isFinite(t) && t > 0)) {
      throw new InvalidArgumentError(
        `samples[${i}].latency should be a positive finite number, got ${t}`,
      );
    }
    if (!(Number.isFinite(w) && w >= 0)) {
      throw new InvalidArgumentError(
        `samples[${i}].weight should be a finite number ≥ 0, got ${w}`,
      );
    }
    latency[i] = t;
    weight[i] = w;
    censored[i] = sample.censored === true ? 1 : 0;
    if (!sample.censored) {
      eventWeight += w;
      eventSquares += w * w;
    }
  }
  if (!(eventWeight > 0)) {
    throw new InvalidArgumentError(
      'a latency estimate needs an uncensored sample of positive weight',
    );
  }
  // Order within a tie does not matter: a tie is one group (its completions jump, its
  // censorings leave after).
  const order = sortedOrder(latency);
  // Weight at risk from each sorted position on, summed from the largest latency down so the
  // last groups are exact rather than what is left after many subtractions.
  const atRisk = new Float64Array(count + 1);
  for (let k = count - 1; k >= 0; k--) {
    atRisk[k] = (atRisk[k + 1] as number) + (weight[order[k] as number] as number);
  }
  const times: number[] = [];
  const masses: number[] = [];
  let survival = 1;
  let k = 0;
  while (k < count) {
    const t = latency[order[k] as number] as number;
    const risk = atRisk[k] as number;
    let events = 0;
    while (k < count && latency[order[k] as number] === t) {
      const i = order[k] as number;
      if (censored[i] === 0) events += weight[i] as number;
      k++;
    }
    if (events > 0 && risk > 0) {
      const jump = survival * Math.min(1, events / risk);
      survival = Math.max(0, survival - jump);
      times.push(t);
      masses.push(jump);
    }
  }
  const timeArray = Float64Array.from(times);
  const massArray = Float64Array.from(masses);
  // remaining[j] = S just before times[j]; remaining[length] = 1 − mass.
  const remaining = new Float64Array(massArray.length + 1);
  remaining[0] = 1;
  for (let j = 0; j < massArray.length; j++) {
    remaining[j + 1] = Math.max(0, (remaining[j] as number) - (massArray[j] as number));
  }
  const mass = 1 - (remaining[massArray.length] as number);
  return {
    times: timeArray,
    masses: massArray,
    mass,
    minLatency: latency[order[0] as number] as number,
    maxLatency: latency[order[count - 1] as number] as number,
    effectiveEvents: (eventWeight * eventWeight) / eventSquares,
    survival: (t) => {
      // Binary search for the number of jumps at or below t.
      let lo = 0;
      let hi = timeArray.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((timeArray[mid] as number) <= t) lo = mid + 1;
        else hi = mid;
      }
      return remaining[lo] as number;
    },
  };
}

/** Run length of the insertion sort that seeds the merge passes of {@link sortedOrder}. */
const RUN = 16;

/**
 * The indices of `keys` in ascending key order (stable): insertion-sorted runs of 16, then
 * bottom-up merges. Hand-written because a comparator sort of an index array is much slower (see
 * docs/benchmarks.md, "Timeout Optimizer recompute"), and this sort is most of building an
 * estimate.
 */
function sortedOrder(keys: Float64Array): Uint32Array {
  const n = keys.length;
  let from = new Uint32Array(n);
  let to = new Uint32Array(n);
  for (let i = 0; i < n; i++) from[i] = i;
  for (let start = 0; start < n; start += RUN) {
    const end = Math.min(n, start + RUN);
    for (let i = start + 1; i < end; i++) {
      const index = from[i] as number;
      const key = keys[index] as number;
      let j = i - 1;
      while (j >= start && (keys[from[j] as number] as number) > key) {
        from[j + 1] = from[j] as number;
        j--;
      }
      from[j + 1] = index;
    }
  }
  for (let width = RUN; width < n; width *= 2) {
    for (let low = 0; low < n; low += 2 * width) {
      const middle = Math.min(n, low + width);
      const high = Math.min(n, low + 2 * width);
      let i = low;
      let j = middle;
      let k = low;
      while (i < middle && j < high) {
        const left = from[i] as number;
        const right = from[j] as number;
        if ((keys[right] as number) < (keys[left] as number)) {
          to[k++] = right;
          j++;
        } else {
          to[k++] = left;
          i++;
        }
      }
      while (i < middle) to[k++] = from[i++] as number;
      while (j < high) to[k++] = from[j++] as number;
    }
    [from, to] = [to, from];
  }
  return from;
}
