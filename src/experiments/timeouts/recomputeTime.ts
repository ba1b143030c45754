import type { TimeoutStrategy } from '../../policy/timeouts/TimeoutStrategy.js';

/**
 * The recompute time a strategy reports, real ms in all so far, or `undefined` when it reports
 * none: a numeric `recomputeTimeMs` property.
 */
export function recomputeTimeMs(strategy: TimeoutStrategy): number | undefined {
  const value = (strategy as { recomputeTimeMs?: unknown }).recomputeTimeMs;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
