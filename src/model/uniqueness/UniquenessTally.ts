import type { UniquenessGuarantee } from '../network/structure.js';
import type { ConfigurationCheck } from './checkConfiguration.js';

/** The totals of a uniqueness check over many configurations. */
export interface UniquenessTally {
  /** Solves run: one per (graph, configuration, initial point). */
  readonly cases: number;
  readonly configurations: number;
  readonly convergedRuns: number;
  /** Runs that hit the sweep limit (not counterexamples). */
  readonly nonConvergedRuns: number;
  /** Configurations with at least one run that did not converge. */
  readonly nonConvergedConfigurations: number;
  /** How many configurations had each uniqueness guarantee. */
  readonly guarantees: Readonly<Record<UniquenessGuarantee, number>>;
  /** Configurations whose converged runs reached two distinct fixed points. */
  readonly counterexamples: number;
}

/** The tally of no configurations. */
export const EMPTY_TALLY: UniquenessTally = {
  cases: 0,
  configurations: 0,
  convergedRuns: 0,
  nonConvergedRuns: 0,
  nonConvergedConfigurations: 0,
  guarantees: { dag: 0, norm: 0, 'class-independent': 0, none: 0 },
  counterexamples: 0,
};

/**
 * The tally with one more configuration's check added; returns a new value. Sums only, so the
 * order checks arrive in (from several threads) never changes the result.
 */
export function addCheck(tally: UniquenessTally, check: ConfigurationCheck): UniquenessTally {
  return {
    cases: tally.cases + check.runs,
    configurations: tally.configurations + 1,
    convergedRuns: tally.convergedRuns + check.converged,
    nonConvergedRuns: tally.nonConvergedRuns + check.nonConverged,
    nonConvergedConfigurations: tally.nonConvergedConfigurations + (check.nonConverged > 0 ? 1 : 0),
    guarantees: { ...tally.guarantees, [check.guarantee]: tally.guarantees[check.guarantee] + 1 },
    counterexamples: tally.counterexamples + (check.distinct === undefined ? 0 : 1),
  };
}

/** The tally of a list of checks. */
export function tallyChecks(checks: readonly ConfigurationCheck[]): UniquenessTally {
  return checks.reduce(addCheck, EMPTY_TALLY);
}
