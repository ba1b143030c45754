/**
 * The call-graph validation's figures in summary (docs/validation-calls.md): how many of a
 * selection of outcomes converged, were bistable or lie within the target, the largest and mean
 * gaps; and the names the page and the CSV give the equilibria and the runs' matches.
 */
import { fmt, max, mean, pm, stateList } from '../simulation/validationFigures.js';
import { type Group, TARGET } from './callValidationCases.js';
import { type Outcome, type Row, rowsOf } from './runCallValidation.js';

export { fmt, max, mean, pm, stateList };

/** Whether a class figure lies within {@link TARGET} of the simulation. */
export const within = (r: Row) => r.gap <= TARGET;
/** A selection of outcomes in summary. */
export interface Summary {
  readonly cases: number;
  readonly converged: number;
  readonly bistable: number;
  readonly casesWithin: number;
  readonly figures: number;
  readonly figuresWithin: number;
  readonly maxGap: number;
  readonly meanGap: number;
  readonly maxCi95: number;
  readonly worst: Row | undefined;
  /** Class figures within the target when the analysis's equations take the simulated s. */
  readonly figuresWithinAtS: number;
  readonly maxGapAtS: number;
}

/** Summarises a selection of outcomes (a group, a band of loads, all). */
export function summarise(selected: readonly Outcome[]): Summary {
  const selectedRows = selected.flatMap(rowsOf);
  const gaps = selectedRows.map((r) => r.gap);
  return {
    cases: selected.length,
    converged: selected.filter((o) => o.report.converged).length,
    bistable: selected.filter((o) => o.report.equilibria.length > 1).length,
    casesWithin: selected.filter((o) => rowsOf(o).every(within)).length,
    figures: selectedRows.length,
    figuresWithin: selectedRows.filter(within).length,
    maxGap: max(gaps),
    meanGap: mean(gaps),
    maxCi95: max(selectedRows.map((r) => r.simCi95).filter(Number.isFinite)),
    worst: [...selectedRows].sort((a, b) => b.gap - a.gap)[0],
    figuresWithinAtS: selectedRows.filter((r) => r.gapAtSimulatedS <= TARGET).length,
    maxGapAtS: max(selectedRows.map((r) => r.gapAtSimulatedS)),
  };
}

/** The outcomes of one group, in the cases' order. */
export function byGroup(outcomes: readonly Outcome[], g: Group): Outcome[] {
  return outcomes.filter((o) => o.c.group === g);
}

/**
 * An equilibrium's name on the page: its kind, and its place in the list where two share a kind
 * (a rising load that tipped into one storm beside another from saturation: "storm 1", "storm 2").
 */
export const stateName = (o: Outcome, index: number, short = false): string => {
  const kind = o.report.equilibria[index]?.kind ?? '?';
  const shared = o.report.equilibria.filter((e) => e.kind === kind).length > 1;
  const name = short ? kind[0] : kind;
  return shared ? `${name}${short ? '' : ' '}${index + 1}` : name;
};
/** Per run, the name of the equilibrium its whole measured window matched, `+`-separated. */
export const matchList = (o: Outcome) =>
  o.matches.map((m) => stateName(o, m.whole.index)).join('+');
