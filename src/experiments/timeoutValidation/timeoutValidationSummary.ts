/**
 * The per-try timeout validation's figures in summary (docs/validation-timeouts-model.md): per
 * selection of points how many have one state, converged, or lie within the target where the
 * state is unique; and the formats and state names its CSV and page share.
 */
import type { StateMatch } from '../simulation/equilibriumMatch.js';
import { fmt, max, mean, pm, stateList } from '../simulation/validationFigures.js';
import { type Outcome, type Row, rowsOf, stateLabel } from './runTimeoutValidation.js';
import { type Group, TARGET } from './timeoutValidationCases.js';

export { fmt, max, mean, pm, stateList };

/** Whether a class figure lies within {@link TARGET} of the simulation. */
export const within = (r: Row) => r.gap <= TARGET;
/** Per equilibrium, its label and how many runs `pick` matched to it: `healthy 7, storm 3`. */
export const matchCounts = (o: Outcome, pick: (m: Outcome['matches'][number]) => StateMatch) =>
  o.report.equilibria
    .map(
      (_, index) =>
        `${stateLabel(o, index)} ${o.matches.filter((m) => pick(m).index === index).length}`,
    )
    .join(', ');

/** A selection of points in summary; its gaps are those of the points with one state. */
export interface Summary {
  readonly points: number;
  readonly unique: number;
  readonly bistable: number;
  readonly converged: number;
  readonly uniqueFigures: number;
  readonly uniqueWithin: number;
  readonly nonTrivial: number;
  readonly nonTrivialWithin: number;
  readonly maxGap: number;
  readonly meanGap: number;
  readonly worst: Row | undefined;
}

/** Summarises a selection of points (a group, all). */
export function summarise(selected: readonly Outcome[]): Summary {
  const unique = selected.filter((o) => o.report.equilibria.length === 1);
  const uniqueRows = unique.flatMap(rowsOf);
  const nonTrivial = uniqueRows.filter((r) => !r.trivial);
  return {
    points: selected.length,
    unique: unique.length,
    bistable: selected.length - unique.length,
    converged: selected.filter((o) => o.report.converged).length,
    uniqueFigures: uniqueRows.length,
    uniqueWithin: uniqueRows.filter(within).length,
    nonTrivial: nonTrivial.length,
    nonTrivialWithin: nonTrivial.filter(within).length,
    maxGap: max(uniqueRows.map((r) => r.gap)),
    meanGap: mean(uniqueRows.map((r) => r.gap)),
    worst: [...uniqueRows].sort((a, b) => b.gap - a.gap)[0],
  };
}

/** The outcomes of one group, in the cases' order. */
export function byGroup(outcomes: readonly Outcome[], g: Group): Outcome[] {
  return outcomes.filter((o) => o.c.group === g);
}
