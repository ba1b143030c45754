import type { UniquenessGuarantee } from '../network/structure.js';

/** What the tally needs of one configuration's check, routing or call graph. */
export interface CheckSummary {
  /** Solves run. */
  readonly runs: number;
  readonly converged: number;
  readonly nonConverged: number;
  readonly guarantee: UniquenessGuarantee;
  /** Present when two converged runs reached distinct fixed points. */
  readonly distinct?: unknown;
}

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
export function addCheck(tally: UniquenessTally, check: CheckSummary): UniquenessTally {
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
export function tallyChecks(checks: readonly CheckSummary[]): UniquenessTally {
  return checks.reduce(addCheck, EMPTY_TALLY);
}

/** The tally of two disjoint sets of checks (say, two threads' shares); returns a new value. */
export function combineTallies(a: UniquenessTally, b: UniquenessTally): UniquenessTally {
  const guarantees = { ...a.guarantees };
  for (const key of Object.keys(guarantees) as UniquenessGuarantee[]) {
    guarantees[key] += b.guarantees[key];
  }
  return {
    cases: a.cases + b.cases,
    configurations: a.configurations + b.configurations,
    convergedRuns: a.convergedRuns + b.convergedRuns,
    nonConvergedRuns: a.nonConvergedRuns + b.nonConvergedRuns,
    nonConvergedConfigurations: a.nonConvergedConfigurations + b.nonConvergedConfigurations,
    guarantees,
    counterexamples: a.counterexamples + b.counterexamples,
  };
}
