import { illinoisRoot } from '../numeric/illinois.js';
import { integerPower } from '../numeric/integerPower.js';
import { mm1mSojournTail } from './mm1mSojourn.js';

/** Relative tolerance of a timed service's own offered load (its local root). */
export const TIMED_LOAD_TOLERANCE = 1e-14;

/**
 * One service with per-try timeouts, as its local load equation sees it (docs/model.md, "Per-try
 * timeouts"): the requests (or calls) arriving per class, and what an accepted attempt must do to
 * succeed. Per-class figures are read from flat arrays at `offset + p` (p = 0 … classCount − 1),
 * so a network solver hands its own per-cell tables (`service × classCount + class`) without
 * copying them, and may keep one such object and move its `offset` from service to service.
 */
export interface TimedServiceLoad {
  /** μ, requests per second. */
  readonly capacity: number;
  /** m, the most requests in the system (the M/M/1/m queue the sojourn is read from). */
  readonly queue: number;
  /** The service's rejection law s = φ(ρ). */
  readonly phi: (rho: number) => number;
  readonly classCount: number;
  /** Index of class 0 in the arrays below. */
  readonly offset: number;
  /** Requests (calls) per second arriving per class, before retries. */
  readonly arrivals: ArrayLike<number>;
  /** k per class: attempts per request are at most k + 1. */
  readonly retryLimits: ArrayLike<number>;
  /** The per-try timeout per class in mean service times, μT; 0 (or less): no timeout. */
  readonly timeouts: ArrayLike<number>;
  /**
   * W per class: the probability that an accepted attempt's own calls all succeed (call graphs);
   * default 1 (routing: a service's attempt is its own work only).
   */
  readonly work?: ArrayLike<number> | undefined;
  /**
   * Per class, the mean time an accepted attempt's calls take when they succeed, seconds; it is
   * taken off the timeout (call graphs). Default 0.
   */
  readonly callsTime?: ArrayLike<number> | undefined;
}

/**
 * τ of class p at offered load ρ: the probability that an accepted attempt is not back within its
 * per-try timeout T — its M/M/1/m sojourn exceeds T less the mean time its calls take.
 * 0 for a class without a timeout.
 */
export function timedTimeoutProbability(service: TimedServiceLoad, p: number, rho: number): number {
  const k = service.offset + p;
  const x = service.timeouts[k] as number;
  if (!(x > 0)) return 0;
  const callsTime = service.callsTime;
  return mm1mSojournTail(
    rho,
    service.queue,
    callsTime === undefined ? x : x - service.capacity * (callsTime[k] as number),
  );
}

/**
 * From this attempt success on, S is 1 − (1 − q)^(k+1) with the power by binary powering (no
 * cancellation to fear: S ≥ q ≥ 1/16); below it, through log1p/expm1, so a tiny q keeps its
 * digits.
 */
const POWERS_FROM = 1 / 16;

/**
 * S = 1 − (1 − q)^(k+1): a request (call) succeeds within its k + 1 attempts, each succeeding with
 * q. For q ≥ 1/16 the power is taken by ⌊log₂(k + 1)⌋ squarings (relative error a few ulps: the
 * call-graph sweeps spent a fifth of their time in log1p and expm1 here); below, through
 * log1p/expm1, so a tiny q keeps its digits.
 */
export function hopSuccess(q: number, retryLimit: number): number {
  if (q >= 1) return 1;
  if (q >= POWERS_FROM) return 1 - integerPower(1 - q, retryLimit + 1);
  return -Math.expm1((retryLimit + 1) * Math.log1p(-q));
}

/** A = S/q = Σ_{r≤k} (1 − q)^r, the attempts per request (call); k + 1 when q = 0. */
export function attemptsPerRequestAt(q: number, retryLimit: number): number {
  return q > 0 ? hopSuccess(q, retryLimit) / q : retryLimit + 1;
}

/**
 * T(ρ) = Σ_p λ_p A_p(ρ) / μ: the offered load the arrivals make when the service runs at offered
 * load ρ — each attempt succeeds with q_p = (1 − φ(ρ)) (1 − τ_p(ρ)) W_p, and a request makes
 * A_p = (1 − (1 − q_p)^(k_p+1)) / q_p attempts.
 */
export function timedOfferedLoad(service: TimedServiceLoad, rho: number): number {
  const { capacity: mu, classCount, offset, arrivals, retryLimits, work } = service;
  const s = service.phi(rho);
  let attempts = 0;
  for (let p = 0; p < classCount; p++) {
    const k = offset + p;
    const calls = arrivals[k] as number;
    if (calls <= 0) continue;
    const tau = timedTimeoutProbability(service, p, rho);
    const q = (1 - s) * (1 - tau) * (work === undefined ? 1 : (work[k] as number));
    attempts += calls * attemptsPerRequestAt(q, retryLimits[k] as number);
  }
  return attempts / mu;
}

/**
 * h(ρ) = T(ρ) − ρ of a service object, to make once and hand to {@link timedServiceLoadBy} with
 * every solve: a solver that keeps one object and moves it from service to service (as the
 * call-graph sweep does) makes one closure in all, not one per solve (a closure per solve cost
 * the sweeps a third of their time under tsx; looking it up per solve, a sixteenth).
 */
export function timedLoadResidual(service: TimedServiceLoad): (rho: number) => number {
  return (rho: number) => timedOfferedLoad(service, rho) - rho;
}

/**
 * The offered load ρ of a service with per-try timeouts: the root of h(ρ) = T(ρ) − ρ (see
 * {@link timedOfferedLoad}) met first from `start` in the direction of h(start) — the state the
 * service's own queue relaxes to from there. T rises with ρ (more rejection and more timeouts,
 * more attempts), so h can have several roots, a healthy state and a storm among them: `start`
 * 0 gives the lowest root (the state met as the load rises from idle), `Infinity` the highest
 * (the state met coming down from saturation), a previous root the nearest one in the direction
 * the new arrivals push.
 *
 * The root is bracketed in [0, Σ_p λ_p (k_p + 1)/μ] (h(0) ≥ 0, and A ≤ k + 1): a plain step
 * (T(ρ₀) never passes the nearest root, T rises), then secant steps capped so none jumps over
 * the nearest root, then Illinois false position inside the bracket, to 1e-14 relative.
 * @param start - where the service's load is now, ≥ 0 (`Infinity`: saturated).
 * @returns ρ, the offered load counting every attempt (0 when nothing arrives).
 * @example
 * ```ts
 * // One M/M/1/50 service, μ = 100/s, 50 requests/s, k = 5, T = 10 service times: bistable.
 * const service = { capacity: 100, queue: 50, phi: phiFor('mm1m', 50), classCount: 1, offset: 0,
 *   arrivals: [50], retryLimits: [5], timeouts: [10] };
 * timedServiceLoad(service, 0);        // 0.50…: healthy, hardly a timeout
 * timedServiceLoad(service, Infinity); // 3.0: the storm, every request making all 6 attempts
 * ```
 */
export function timedServiceLoad(service: TimedServiceLoad, start: number): number {
  return timedServiceLoadBy(service, start, timedLoadResidual(service));
}

/**
 * {@link timedServiceLoad} with the service's h(ρ) made by the caller once
 * ({@link timedLoadResidual}), for a solver that solves one moving view again and again.
 */
export function timedServiceLoadBy(
  service: TimedServiceLoad,
  start: number,
  h: (rho: number) => number,
): number {
  const { capacity: mu, classCount, offset, arrivals, retryLimits } = service;
  let most = 0;
  for (let p = 0; p < classCount; p++) {
    const k = offset + p;
    most += ((arrivals[k] as number) * ((retryLimits[k] as number) + 1)) / mu;
  }
  if (most <= 0) return 0;
  // h(0) > 0 and h(most) ≤ 0 (A ≤ k + 1): a root lies in [0, most].
  const x0 = Math.min(Math.max(start, 0), most);
  const h0 = h(x0);
  if (Math.abs(h0) <= TIMED_LOAD_TOLERANCE * x0 || h0 === 0) return x0;
  const up = h0 > 0;
  const far = up ? most : 0;
  // The plain step T(x0) never passes the nearest root (T rises); from there, secant steps
  // (pushed a little further, and at most doubling the way travelled so none jumps over the
  // nearest root) until the sign changes, then false position inside the bracket.
  let a = x0;
  let ha = h0;
  let b = Math.min(Math.max(x0 + h0, 0), most);
  let hb = h(b);
  // At the far end h has the sign the bracket needs (rounding aside).
  if (b === far) hb = up ? Math.min(hb, 0) : Math.max(hb, 0);
  for (let tries = 0; tries < 200 && hb !== 0 && hb > 0 === up; tries++) {
    if (Math.abs(hb) <= TIMED_LOAD_TOLERANCE * b) return b;
    const secant = ha !== hb ? b - (hb * (b - a)) / (hb - ha) : b + (b - a);
    let next = secant + 0.1 * (secant - b);
    if (up ? next <= b : next >= b) next = b + (b - a);
    const limit = b + 2 * (b - x0);
    next = up ? Math.min(next, limit, far) : Math.max(next, limit, far);
    if (next === b) break;
    a = b;
    ha = hb;
    b = next;
    hb = h(b);
    if (b === far) hb = up ? Math.min(hb, 0) : Math.max(hb, 0);
  }
  if (hb === 0) return b;
  // Within a few ulps of the root h is rounding noise and may not change sign: take the end
  // nearer to zero.
  if (hb > 0 === ha > 0) return Math.abs(hb) < Math.abs(ha) ? b : a;
  return illinoisRoot(h, a, ha, b, hb, TIMED_LOAD_TOLERANCE * Math.max(a, b));
}
