import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { checkRetryingService } from '../queue/checkRetryingService.js';
import { stationaryDistribution } from './stationaryDistribution.js';

/**
 * The exact reference of one service with retries and per-try timeouts (docs/model.md, "The
 * exact reference"): an M/M/1/m FCFS queue fed by Poisson requests of several classes, whose
 * rejected or timed-out attempts are retried after an exponential backoff, with exponentially
 * distributed per-try timeouts, as one finite continuous-time Markov chain, solved numerically.
 *
 * A state is the queue's sequence of attempts, head first — each either **live** (class p, with
 * r retries used) or **abandoned** (its client timed out; the server still does its work, which
 * holds its place) — and the requests in backoff, by class and retries used. Transitions:
 * - a fresh request of class p (rate λ_p) sends its first attempt;
 * - a request in backoff with r retries used (rate β_p each) sends its attempt r + 1;
 * - an attempt that finds m in the system is rejected at once; one that times out (rate θ_p per
 *   live attempt) is abandoned where it stands; either way the request backs off with one retry
 *   more, or gives up when it has used its k_p;
 * - the server completes the head (rate μ): a live head's request succeeds.
 *
 * The backoff population has no bound; the chain keeps at most `maxBackoff` requests there, a
 * request that would make one more giving up (counted apart, `truncatedGiveUps`). The caller
 * raises the bound until the mass at it (`boundaryMass`) is negligible: {@link solveRetryQueue}
 * does so.
 */
export interface RetryQueueClass {
  /** λ_p, fresh requests per second. */
  readonly arrivalRate: number;
  /** k_p: retries after a rejected or timed-out attempt. */
  readonly retryLimit: number;
  /** Mean per-try timeout, seconds (exponentially distributed); `Infinity`: none. */
  readonly meanTimeout: number;
  /** Mean backoff before each retry, seconds (exponentially distributed). */
  readonly meanBackoff: number;
}

/** The service the chain describes. */
export interface RetryQueueService {
  /** μ, completions per second of the one server. */
  readonly capacity: number;
  /** m, the most attempts in the system (live or abandoned), the one in service included. */
  readonly queue: number;
  readonly classes: readonly RetryQueueClass[];
}

/** What the stationary chain says, per class. */
export interface RetryQueueClassFigures {
  /** R_p: the share of requests that give up (all k_p + 1 attempts failed). */
  readonly requestRejection: number;
  /** The share of attempts rejected on arrival (queue full). */
  readonly attemptRejection: number;
  /** τ_p: the share of accepted attempts that time out. */
  readonly timeoutShare: number;
  /** Attempts per request. */
  readonly attemptsPerRequest: number;
  /** Mean requests of the class in backoff. */
  readonly meanBackoff: number;
}

/** The stationary figures of a {@link RetryQueueService}. */
export interface RetryQueueFigures {
  readonly classes: readonly RetryQueueClassFigures[];
  /** ρ: attempts offered per second over μ (every attempt, accepted or not). */
  readonly offeredLoad: number;
  /** The share of time the server is busy. */
  readonly utilisation: number;
  /** Mean attempts in the system (live and abandoned). */
  readonly meanQueue: number;
  /** States of the chain. */
  readonly states: number;
  /** The bound on requests in backoff the figures were solved at. */
  readonly maxBackoff: number;
  /** Stationary probability of the states with `maxBackoff` requests in backoff. */
  readonly boundaryMass: number;
  /** Give-ups per second caused by the bound (a request refused a place in backoff). */
  readonly truncatedGiveUps: number;
  /** ‖πQ‖₁ of the solution: how far it is from stationary. */
  readonly residual: number;
}

/** The most states {@link retryQueueFigures} builds before refusing. */
export const MAX_CHAIN_STATES = 2_000_000;

/** One state, decoded: the queue head first, symbol 0 abandoned, 1 + slot a live attempt. */
interface State {
  readonly queue: readonly number[];
  /** Requests in backoff per slot (class and retries used, see `slotOf`). */
  readonly backoff: readonly number[];
}

/**
 * Builds the chain of `service` with at most `maxBackoff` requests in backoff and solves it.
 * @throws RangeError on a bad service, or when the chain would have more than
 *   {@link MAX_CHAIN_STATES} states.
 */
export function retryQueueFigures(
  service: Readonly<RetryQueueService>,
  maxBackoff: number,
): RetryQueueFigures {
  checkService(service, maxBackoff);
  const { capacity: mu, queue: m, classes } = service;
  // Slots: (class p, retries used r), r = 0 … k_p. A live attempt carries its slot; a request in
  // backoff has used r ≥ 1 retries' worth of attempts and waits to send attempt r + 1, so it
  // sits in the slot (p, r) with r = 1 … k_p.
  const slotBase: number[] = [];
  let slots = 0;
  for (const entry of classes) {
    slotBase.push(slots);
    slots += entry.retryLimit + 1;
  }
  const slotClass: number[] = [];
  const slotRetries: number[] = [];
  classes.forEach((entry, p) => {
    for (let r = 0; r <= entry.retryLimit; r++) {
      slotClass.push(p);
      slotRetries.push(r);
    }
  });

  const bound = stateBound(m, slots + 1, slots - classes.length, maxBackoff);
  if (bound > MAX_CHAIN_STATES) {
    throw new InvalidArgumentError(
      `the exact chain could have ${bound.toExponential(2)} states, more than ${MAX_CHAIN_STATES}; give a smaller queue, fewer retries or a lower backoff bound`,
    );
  }
  const index = new Map<string, number>();
  const states: State[] = [];
  const keyOf = (state: State) => `${state.queue.join(',')}|${state.backoff.join(',')}`;
  const intern = (state: State): number => {
    const key = keyOf(state);
    let i = index.get(key);
    if (i === undefined) {
      i = states.length;
      if (i >= MAX_CHAIN_STATES) {
        throw new InvalidArgumentError(
          `the exact chain would have more than ${MAX_CHAIN_STATES} states; give a smaller queue, fewer retries or a lower backoff bound`,
        );
      }
      index.set(key, i);
      states.push(state);
    }
    return i;
  };

  // Transitions, as (from, to, rate) triples; self-loops (a give-up that leaves the state as it
  // was) are kept out of the generator and counted into the figures below.
  const from: number[] = [];
  const to: number[] = [];
  const rates: number[] = [];
  /** Per state and class: give-up rate, attempt rate, rejected attempts, accepted, timeouts. */
  const perClass = 5;
  const tallies: number[][] = [];
  const truncated: number[] = [];

  intern({ queue: [], backoff: new Array<number>(slots).fill(0) });
  for (let i = 0; i < states.length; i++) {
    const state = states[i] as State;
    const tally = new Array<number>(classes.length * perClass).fill(0);
    let cut = 0;
    const add = (next: State, rate: number) => {
      if (rate <= 0) return;
      from.push(i);
      to.push(intern(next));
      rates.push(rate);
    };
    /** The request of `slot` failed an attempt: it backs off (one retry more) or gives up. */
    const failed = (slot: number, queue: readonly number[], backoff: readonly number[]) => {
      const p = slotClass[slot] as number;
      const r = slotRetries[slot] as number;
      if (r >= (classes[p] as RetryQueueClass).retryLimit) return { queue, backoff, gaveUp: true };
      const held = backoff.reduce((sum, n) => sum + n, 0);
      if (held >= maxBackoff) return { queue, backoff, gaveUp: true, cut: true };
      const next = backoff.slice();
      next[slot + 1] = (next[slot + 1] as number) + 1;
      return { queue, backoff: next, gaveUp: false };
    };
    /** An attempt of `slot` is sent, from `backoff` (the request already taken out of it). */
    const send = (slot: number, backoff: readonly number[], rate: number) => {
      const p = slotClass[slot] as number;
      tally[p * perClass + 1] += rate;
      if (state.queue.length < m) {
        tally[p * perClass + 3] += rate;
        add({ queue: [...state.queue, 1 + slot], backoff }, rate);
        return;
      }
      tally[p * perClass + 2] += rate;
      const outcome = failed(slot, state.queue, backoff);
      if (outcome.gaveUp) {
        tally[p * perClass] += rate;
        if (outcome.cut === true) cut += rate;
      }
      add({ queue: outcome.queue, backoff: outcome.backoff }, rate);
    };
    classes.forEach((entry, p) => {
      send(slotBase[p] as number, state.backoff, entry.arrivalRate);
    });
    for (let slot = 0; slot < slots; slot++) {
      const waiting = state.backoff[slot] as number;
      if (waiting === 0) continue;
      const rate = waiting / (classes[slotClass[slot] as number] as RetryQueueClass).meanBackoff;
      const backoff = state.backoff.slice();
      backoff[slot] = waiting - 1;
      send(slot, backoff, rate);
    }
    if (state.queue.length > 0) {
      add({ queue: state.queue.slice(1), backoff: state.backoff }, mu);
    }
    state.queue.forEach((symbol, position) => {
      if (symbol === 0) return;
      const slot = symbol - 1;
      const p = slotClass[slot] as number;
      const meanTimeout = (classes[p] as RetryQueueClass).meanTimeout;
      if (!(meanTimeout < Number.POSITIVE_INFINITY)) return;
      const rate = 1 / meanTimeout;
      tally[p * perClass + 4] += rate;
      const queue = state.queue.slice();
      queue[position] = 0;
      const outcome = failed(slot, queue, state.backoff);
      if (outcome.gaveUp) {
        tally[p * perClass] += rate;
        if (outcome.cut === true) cut += rate;
      }
      add({ queue, backoff: outcome.backoff }, rate);
    });
    tallies.push(tally);
    truncated.push(cut);
  }

  const solved = stationaryDistribution(states.length, from, to, rates);
  const pi = solved.pi;
  const sums = new Array<number>(classes.length * perClass).fill(0);
  const meanBackoffs = new Array<number>(classes.length).fill(0);
  let busy = 0;
  let meanQueue = 0;
  let boundaryMass = 0;
  let truncatedGiveUps = 0;
  states.forEach((state, i) => {
    const weight = pi[i] as number;
    const tally = tallies[i] as number[];
    for (let j = 0; j < sums.length; j++)
      sums[j] = (sums[j] as number) + weight * (tally[j] as number);
    if (state.queue.length > 0) busy += weight;
    meanQueue += weight * state.queue.length;
    let held = 0;
    state.backoff.forEach((n, slot) => {
      held += n;
      const p = slotClass[slot] as number;
      meanBackoffs[p] = (meanBackoffs[p] as number) + weight * n;
    });
    if (held >= maxBackoff) boundaryMass += weight;
    truncatedGiveUps += weight * (truncated[i] as number);
  });
  let attemptRate = 0;
  const figures = classes.map((entry, p): RetryQueueClassFigures => {
    const base = p * perClass;
    const giveUps = sums[base] as number;
    const attempts = sums[base + 1] as number;
    const rejected = sums[base + 2] as number;
    const accepted = sums[base + 3] as number;
    const timeouts = sums[base + 4] as number;
    attemptRate += attempts;
    const lambda = entry.arrivalRate;
    return {
      requestRejection: lambda > 0 ? giveUps / lambda : 0,
      attemptRejection: attempts > 0 ? rejected / attempts : 0,
      timeoutShare: accepted > 0 ? timeouts / accepted : 0,
      attemptsPerRequest: lambda > 0 ? attempts / lambda : 0,
      meanBackoff: meanBackoffs[p] as number,
    };
  });
  return {
    classes: figures,
    offeredLoad: attemptRate / mu,
    utilisation: busy,
    meanQueue,
    states: states.length,
    maxBackoff,
    boundaryMass,
    truncatedGiveUps,
    residual: solved.residual,
  };
}

/**
 * An upper bound on the states: queue sequences of length ≤ m over `symbols` symbols, times the
 * ways to put at most `maxBackoff` requests into `backoffSlots` slots, C(maxBackoff + slots, slots).
 */
function stateBound(m: number, symbols: number, backoffSlots: number, maxBackoff: number): number {
  let sequences = 0;
  for (let length = 0, count = 1; length <= m; length++, count *= symbols) sequences += count;
  let compositions = 1;
  for (let i = 1; i <= backoffSlots; i++) compositions = (compositions * (maxBackoff + i)) / i;
  return sequences * compositions;
}

function checkService(service: Readonly<RetryQueueService>, maxBackoff: number): void {
  checkRetryingService(service);
  if (!(Number.isInteger(maxBackoff) && maxBackoff >= 0)) {
    throw new InvalidArgumentError(`maxBackoff should be an integer ≥ 0, got ${maxBackoff}`);
  }
  service.classes.forEach((entry, p) => {
    if (!(entry.meanTimeout > 0)) {
      throw new InvalidArgumentError(
        `classes[${p}].meanTimeout should be > 0 (or Infinity), got ${entry.meanTimeout}`,
      );
    }
    if (!(Number.isFinite(entry.meanBackoff) && entry.meanBackoff > 0)) {
      throw new InvalidArgumentError(
        `classes[${p}].meanBackoff should be a positive number of seconds, got ${entry.meanBackoff}`,
      );
    }
  });
}

/** Options of {@link solveRetryQueue}. */
export interface SolveRetryQueueOptions {
  /** The first bound on requests in backoff; default 16. */
  readonly initialBackoff?: number;
  /** Stop raising the bound once the mass at it is below this; default 1e-9. */
  readonly boundaryTolerance?: number;
}

/**
 * {@link retryQueueFigures} with the backoff bound doubled until the stationary mass at the bound
 * is below `boundaryTolerance` (the figures then differ from the unbounded chain's by about that
 * much), or the chain would be too large (then the last figures, whose `boundaryMass` says how
 * far they are to be trusted).
 */
export function solveRetryQueue(
  service: Readonly<RetryQueueService>,
  options: SolveRetryQueueOptions = {},
): RetryQueueFigures {
  const tolerance = options.boundaryTolerance ?? 1e-9;
  let bound = options.initialBackoff ?? 16;
  let figures = retryQueueFigures(service, bound);
  while (figures.boundaryMass > tolerance) {
    bound *= 2;
    try {
      figures = retryQueueFigures(service, bound);
    } catch (error) {
      if (error instanceof RangeError && /more than/.test(error.message)) return figures;
      throw error;
    }
  }
  return figures;
}
