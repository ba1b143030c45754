import type { DelayLaw } from './backoff/retryDelay.js';
import type { ServiceTimeDistribution } from './distributions/ServiceTimeDistribution.js';
import { integrate } from './numeric/integrate.js';

/**
 * α = P(the blocking job's residual service time ≤ the retry delay): the probability that a
 * retry following a rejection finds the server has moved on, so it is rejected again only with
 * the ordinary probability s; otherwise (probability 1 − α) the system is still full.
 *
 * The residual R of the job in service, seen at a random instant, has the equilibrium law
 * F_e(x) = (1/E[S]) ∫₀ˣ F̄(u) du, and α = E[F_e(D)] over the delay D:
 * - fixed D = d: α = F_e(d);
 * - D ~ Exp(mean δ): α = P(R ≤ D) = E[e^(−R/δ)], the residual's Laplace transform at 1/δ when it
 *   has a closed form, else ∫₀¹ F_e(−δ ln(1 − v)) dv;
 * - D ~ U(a, b): α = (1/(b − a)) ∫ₐᵇ F_e(x) dx.
 * α = 1 gives back the independent model; a retry after a short delay behind a long job has α ≈ 0.
 * @see docs/design.md, "One service", residual-time correction.
 * @param service - the service-time law (seconds).
 * @param delay - the law of the retry delay (milliseconds).
 */
export function residualAlpha(service: ServiceTimeDistribution, delay: DelayLaw): number {
  switch (delay.kind) {
    case 'fixed':
      return clamp01(service.residualCdf(delay.ms / 1000));
    case 'exponential': {
      const meanSeconds = delay.meanMs / 1000;
      if (meanSeconds === 0) return 0;
      if (service.residualLaplace) return clamp01(service.residualLaplace(1 / meanSeconds));
      return clamp01(
        integrate((v) => (v >= 1 ? 1 : service.residualCdf(-meanSeconds * Math.log1p(-v))), 0, 1),
      );
    }
    case 'uniform': {
      const a = delay.minMs / 1000;
      const b = delay.maxMs / 1000;
      if (b - a <= 0) return clamp01(service.residualCdf(a));
      return clamp01(integrate((x) => service.residualCdf(x), a, b) / (b - a));
    }
  }
}

function clamp01(x: number): number {
  return Math.min(Math.max(x, 0), 1);
}
