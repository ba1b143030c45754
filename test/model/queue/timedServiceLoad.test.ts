import { describe, expect, it } from 'vitest';
import { phiFor } from '../../../src/model/phi/index.js';
import {
  attemptsPerRequestAt,
  hopSuccess,
  type TimedServiceLoad,
  timedOfferedLoad,
  timedServiceLoad,
} from '../../../src/model/queue/timedServiceLoad.js';
import { expectClose, phiReference } from '../reference.js';
import { tailReference } from './sojournReference.js';

/*
 * The shared local solve of a timed service against a reference built from the mm1m law and the
 * arrival-seen sojourn tail of the test's own references: one attempt of class p succeeds with
 * q = (1 − φ(ρ)) (1 − τ(ρ, x_p − μ c_p)) W_p, a request makes Σ_{r≤k} (1 − q)^r attempts, and the
 * service's load is a root of G(ρ) = Σ_p λ_p A_p(ρ)/μ − ρ.
 */
interface RefClass {
  readonly lambda: number;
  readonly k: number;
  readonly x: number;
  readonly work?: number;
  /** Calls' mean time, seconds. */
  readonly callsTime?: number;
}

function G(classes: readonly RefClass[], mu: number, m: number, rho: number): number {
  const s = phiReference('mm1m', rho, m);
  let load = 0;
  for (const c of classes) {
    const x = c.x - mu * (c.callsTime ?? 0);
    const tau = c.x > 0 ? (x > 0 ? tailReference(rho, m, x) : 1) : 0;
    const q = (1 - s) * (1 - tau) * (c.work ?? 1);
    let attempts = 0;
    for (let r = 0; r <= c.k; r++) attempts += (1 - q) ** r;
    load += (c.lambda / mu) * attempts;
  }
  return load - rho;
}

/** Every root of G (sign changes on a fine grid, bisected), lowest first. */
function roots(classes: readonly RefClass[], mu: number, m: number): number[] {
  const least = classes.reduce((sum, c) => sum + c.lambda / mu, 0) / 1.01;
  const most = 1.01 * classes.reduce((sum, c) => sum + (c.lambda * (c.k + 1)) / mu, 0);
  const found: number[] = [];
  const steps = 600;
  let a = least;
  let ga = G(classes, mu, m, a);
  for (let i = 1; i <= steps; i++) {
    const b = least * (most / least) ** (i / steps);
    const gb = G(classes, mu, m, b);
    if (ga > 0 !== gb > 0) {
      let lo = a;
      let hi = b;
      for (let it = 0; it < 200; it++) {
        const mid = (lo + hi) / 2;
        if (G(classes, mu, m, mid) > 0 === ga > 0) lo = mid;
        else hi = mid;
      }
      found.push((lo + hi) / 2);
    }
    a = b;
    ga = gb;
  }
  return found;
}

function serviceOf(classes: readonly RefClass[], mu: number, m: number): TimedServiceLoad {
  return {
    capacity: mu,
    queue: m,
    phi: phiFor('mm1m', m),
    classCount: classes.length,
    offset: 0,
    arrivals: classes.map((c) => c.lambda),
    retryLimits: classes.map((c) => c.k),
    timeouts: classes.map((c) => c.x),
    work: classes.map((c) => c.work ?? 1),
    callsTime: classes.map((c) => c.callsTime ?? 0),
  };
}

describe('timedServiceLoad: the root met first from where the service is', () => {
  it('a bistable service: from idle the lowest root, from saturation the highest, from between the nearest one in the direction it is pushed', () => {
    const classes = [{ lambda: 50, k: 5, x: 10 }];
    const service = serviceOf(classes, 100, 50);
    const all = roots(classes, 100, 50);
    const inputs = { classes, all };
    expect(all).toHaveLength(3);
    const [low, middle, high] = all as [number, number, number];
    expectClose(timedServiceLoad(service, 0), low, { rel: 1e-9 }, inputs);
    expectClose(timedServiceLoad(service, Number.POSITIVE_INFINITY), high, { rel: 1e-9 }, inputs);
    // Just above the unstable middle root the load is pushed up, just below it down.
    expectClose(timedServiceLoad(service, middle * 1.01), high, { rel: 1e-9 }, inputs);
    expectClose(timedServiceLoad(service, middle * 0.99), low, { rel: 1e-9 }, inputs);
    // The storm makes every attempt: 6 × 0.5.
    expectClose(high, 3, { rel: 1e-3 }, inputs);
  });

  it.each([
    {
      name: 'two classes, one untimed',
      classes: [
        { lambda: 20, k: 5, x: 8 },
        { lambda: 30, k: 1, x: 0 },
      ],
    },
    {
      name: 'calls below: W and the calls’ time',
      classes: [
        { lambda: 15, k: 3, x: 12, work: 0.9, callsTime: 0.02 },
        { lambda: 40, k: 1, x: 6, work: 0.95, callsTime: 0.01 },
      ],
    },
    { name: 'overloaded, one class', classes: [{ lambda: 150, k: 2, x: 20 }] },
  ])('$name: a root of G, the lowest from idle and the highest from saturation', ({ classes }) => {
    const mu = 100;
    const m = 20;
    const service = serviceOf(classes, mu, m);
    const all = roots(classes, mu, m);
    const inputs = { classes, all };
    expectClose(timedServiceLoad(service, 0), all[0] as number, { rel: 1e-9 }, inputs);
    expectClose(
      timedServiceLoad(service, Number.POSITIVE_INFINITY),
      all[all.length - 1] as number,
      { rel: 1e-9 },
      inputs,
    );
    const rho = timedServiceLoad(service, 0);
    expectClose(timedOfferedLoad(service, rho), rho, { rel: 1e-12 }, inputs);
  });

  it('reads its classes at the offset, so a network hands its flat per-cell tables', () => {
    const classes = [{ lambda: 20, k: 5, x: 8 }];
    const flat: TimedServiceLoad = {
      ...serviceOf(classes, 100, 20),
      classCount: 1,
      offset: 2,
      arrivals: [99, 99, 20],
      retryLimits: [0, 0, 5],
      timeouts: [1, 1, 8],
      work: undefined,
      callsTime: undefined,
    };
    expect(timedServiceLoad(flat, 0)).toBe(timedServiceLoad(serviceOf(classes, 100, 20), 0));
  });

  it('nothing arriving: no load', () => {
    const service = serviceOf([{ lambda: 0, k: 5, x: 8 }], 100, 20);
    expect(timedServiceLoad(service, 0)).toBe(0);
    expect(timedServiceLoad(service, Number.POSITIVE_INFINITY)).toBe(0);
  });
});

describe('attemptsPerRequestAt and hopSuccess: A = Σ_{r≤k} (1 − q)^r and S = 1 − (1 − q)^(k+1)', () => {
  /** The exact sum in rationals: q = a / 2^40, every power of 1 − q computed in BigInt. */
  function exact(a: bigint, k: number): { attempts: number; success: number } {
    const d = 1n << 40n;
    const miss = d - a;
    // A = Σ_{r≤k} miss^r / d^r, over the common denominator d^k.
    let numerator = 0n;
    for (let r = 0; r <= k; r++) numerator += miss ** BigInt(r) * d ** BigInt(k - r);
    const scale = d ** BigInt(k);
    const attempts = Number((numerator * 10n ** 30n) / scale) / 1e30;
    // S = 1 − (miss / d)^(k+1).
    const power = miss ** BigInt(k + 1);
    const full = d ** BigInt(k + 1);
    const success = Number(((full - power) * 10n ** 30n) / full) / 1e30;
    return { attempts, success };
  }

  it('agrees with the exact sum to 1e-14 relative, q from 2^-40 to 1 and k up to 60', () => {
    // q from 2^-40 (≈ 9e-13, where 1 − (1 − q)^(k+1) in floating point loses four digits) to 1.
    // Both sides of 1/16, where the power by squarings takes over from log1p/expm1.
    const powers = [(1n << 36n) - 1n, 1n << 36n, (1n << 36n) + 1n, 1n << 39n, 3n << 38n];
    for (const a of [1n, 3n, 1n << 20n, 1n << 38n, (1n << 40n) - 1n, ...powers]) {
      const q = Number(a) / 2 ** 40;
      for (const k of [0, 1, 2, 5, 10, 32, 33, 60]) {
        const want = exact(a, k);
        expect(
          Math.abs(attemptsPerRequestAt(q, k) / want.attempts - 1),
          `q ${q} k ${k}`,
        ).toBeLessThan(1e-14);
        expect(Math.abs(hopSuccess(q, k) / want.success - 1), `q ${q} k ${k}`).toBeLessThan(1e-14);
      }
    }
  });

  it('at the ends: q = 0 makes k + 1 attempts and never succeeds, q = 1 one attempt that does', () => {
    for (const k of [0, 3, 40]) {
      expect(attemptsPerRequestAt(0, k)).toBe(k + 1);
      expect(hopSuccess(0, k)).toBe(0);
      expect(attemptsPerRequestAt(1, k)).toBe(1);
      expect(hopSuccess(1, k)).toBe(1);
      // A tiny q keeps its digits: S = (k + 1) q to first order.
      expect(hopSuccess(1e-300, k) / 1e-300).toBeCloseTo(k + 1, 12);
    }
  });
});
