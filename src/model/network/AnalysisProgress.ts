/**
 * Where a network analysis is (`analyzeNetwork`'s `onProgress`), for a caller that shows long
 * analyses moving: the phase, and the sweeps of the network made so far in the whole analysis.
 */
export interface AnalysisProgress {
  /**
   * `structure`: the routing structure (DAG, ρ(F)) is being checked; `healthy`: the load is being
   * raised from zero (the state an idle network reaches, and where it tips); `storm`: the search
   * from saturation; `orbit`: the orbit law is solving one service (`detail` says which, and in
   * which state); `report`: the equilibria are solved and the report is being made.
   */
  readonly phase: 'structure' | 'healthy' | 'storm' | 'orbit' | 'report';
  /**
   * Sweeps of the whole network so far (residual evaluations of Newton and continuation too;
   * under the orbit law, passes of the flows over the services).
   */
  readonly sweeps: number;
  /** What the phase is at, for the `orbit` phase: "healthy state, service api". */
  readonly detail?: string;
}

/**
 * Sweeps between two progress reports: about this many cell updates (service × class), so a
 * report comes every few tenths of a second whatever the network's size…
 */
const CELL_SWEEPS_PER_REPORT = 500_000;
/** …but at least every this many sweeps, so a small network that takes long reports too. */
const MOST_SWEEPS_PER_REPORT = 250;

/** Sweeps between two progress reports for a network of `cells` (service × class) cells. */
export function sweepsPerReport(cells: number): number {
  return Math.max(
    1,
    Math.min(MOST_SWEEPS_PER_REPORT, Math.ceil(CELL_SWEEPS_PER_REPORT / Math.max(cells, 1))),
  );
}
