/** Whether a stream of send times looks like a Poisson process, judged by its gaps. */
export interface PoissonCheck {
  /** Gaps measured (sends − 1). */
  readonly gaps: number;
  /** Mean gap, ms. */
  readonly meanGapMs: number;
  /** Coefficient of variation of the gaps (standard deviation / mean); 1 for exponential gaps. */
  readonly cv: number;
  /**
   * How far from 1 the CV may be for the verdict `poisson`: max(0.05, 3/√gaps). For exponential
   * gaps the sample CV has standard error ≈ 1/√n (delta method: Var(s²) = 8/n, Var(x̄) = 1/n,
   * Cov = 2/n at mean 1), so short streams get three standard errors, long ones 0.05.
   */
  readonly tolerance: number;
  /** |cv − 1| ≤ tolerance (and at least 20 gaps). */
  readonly poisson: boolean;
  /** One line for a report, e.g. `CV 0.98 (±0.05): Poisson`. */
  readonly verdict: string;
}

/** Fewest gaps on which a verdict is given. */
export const MIN_GAPS_FOR_VERDICT = 20;

/**
 * Checks the gaps of an ascending list of send times (ms): their coefficient of variation against
 * the exponential law's 1. Bursts (a timer loop catching up, so several sends share one instant)
 * push the CV above 1; a paced, clock-like stream pushes it towards 0.
 * @example
 * ```ts
 * poissonCheck([0, 12.5, 13.1, 40.2, …]).verdict; // 'CV 1.01 (±0.05): Poisson'
 * ```
 */
export function poissonCheck(timesMs: ArrayLike<number>): PoissonCheck {
  const gaps = Math.max(0, timesMs.length - 1);
  if (gaps < 2) {
    return {
      gaps,
      meanGapMs: Number.NaN,
      cv: Number.NaN,
      tolerance: Number.NaN,
      poisson: false,
      verdict: `too few sends (${timesMs.length}) to judge`,
    };
  }
  // Welford's running mean and variance: stable for long streams of similar gaps.
  let mean = 0;
  let m2 = 0;
  for (let i = 1; i <= gaps; i++) {
    const gap = (timesMs[i] as number) - (timesMs[i - 1] as number);
    const delta = gap - mean;
    mean += delta / i;
    m2 += delta * (gap - mean);
  }
  const sd = Math.sqrt(m2 / (gaps - 1));
  const cv = mean > 0 ? sd / mean : Number.NaN;
  const tolerance = Math.max(0.05, 3 / Math.sqrt(gaps));
  const enough = gaps >= MIN_GAPS_FOR_VERDICT;
  const poisson = enough && Math.abs(cv - 1) <= tolerance;
  const judged = !enough
    ? 'too few gaps to judge'
    : poisson
      ? 'Poisson'
      : cv > 1
        ? 'NOT Poisson (bursty)'
        : 'NOT Poisson (too regular)';
  return {
    gaps,
    meanGapMs: mean,
    cv,
    tolerance,
    poisson,
    verdict: `CV ${cv.toFixed(3)} (±${tolerance.toFixed(3)}): ${judged}`,
  };
}
