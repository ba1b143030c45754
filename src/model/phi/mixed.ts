import { checkQueue, mm1mBlocking } from './mm1m.js';
import type { Phi } from './Phi.js';

/**
 * The mixed law: M/M/1/m blocking below saturation, and the fluid excess above it, floored at the
 * M/M/1/m value at ρ = 1 so the law stays continuous and non-decreasing:
 * φ(ρ) = P_m(ρ) for ρ ≤ 1, max(1 − 1/ρ, 1/(m+1)) for ρ > 1.
 */
export function mixedPhi(m: number): Phi {
  checkQueue(m);
  const atSaturation = 1 / (m + 1);
  return Object.assign(
    (rho: number) => (rho <= 1 ? mm1mBlocking(rho, m) : Math.max(1 - 1 / rho, atSaturation)),
    { model: 'mixed' as const },
  );
}
