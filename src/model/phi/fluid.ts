import type { Phi } from './Phi.js';

/**
 * The fluid law φ(ρ) = max(0, 1 − 1/ρ): a server rejects exactly the excess over its capacity, so
 * in overload the accepted rate equals the capacity.
 */
export const fluidPhi: Phi = Object.assign((rho: number) => (rho <= 1 ? 0 : 1 - 1 / rho), {
  model: 'fluid' as const,
});
