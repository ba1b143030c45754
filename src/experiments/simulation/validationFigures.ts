/**
 * The figures every validation page and CSV prints the same way (the call-graph and the per-try
 * timeout validations): numbers with 4 decimals, means with their 95 % half-widths, the largest
 * and mean gap, the kinds of an analysis's equilibria, and what a page says of the run that made
 * it.
 */
import { fixed, plusMinus } from '../../report/numberFormat.js';

/** A figure with 4 decimals (or `d`). */
export const fmt = (x: number, d = 4) => fixed(x, d);
/** A mean ± its 95 % half-width, 4 decimals. */
export const pm = (x: number, h: number) => plusMinus(x, h, 4);
/** The largest of `xs`; NaN when empty. */
export const max = (xs: readonly number[]) => (xs.length === 0 ? Number.NaN : Math.max(...xs));
/** The mean of `xs`; NaN when empty. */
export const mean = (xs: readonly number[]) =>
  xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
/** The kinds of the analysis's equilibria, `+`-separated: `healthy+storm`. */
export const stateList = (o: {
  readonly report: { readonly equilibria: readonly { readonly kind: string }[] };
}) => o.report.equilibria.map((e) => e.kind).join('+');

/** What a validation page says about the run that made it. */
export interface ValidationRunContext {
  /** The source revision measured (`sourceRevision`). */
  readonly revision: string;
  /** Wall-clock seconds of the whole run. */
  readonly seconds: number;
  /** The load averages (`os.loadavg()`) at the start and at the end. */
  readonly loadAtStart: readonly number[];
  readonly loadAtEnd: readonly number[];
}

/** One class's figures at one case, as both validations' rows hold them. */
export interface FigureRow {
  readonly o: {
    readonly report: {
      readonly converged: boolean;
      readonly tippedAt?: number;
      readonly equilibria: readonly { readonly kind: string }[];
    };
  };
  readonly cls: string;
  readonly k: number;
  /** The analysis's main figure (its first equilibrium). */
  readonly pred: number;
  readonly predHealthy: number;
  readonly predStorm: number;
  readonly sim: number;
  readonly simCi95: number;
  readonly gap: number;
}

/** The CSV columns every validation has, in order: the analysis beside the simulation. */
export const FIGURE_COLUMNS = [
  'converged',
  'equilibria',
  'tippedAt',
  'class',
  'k',
  'analysis',
  'analysisHealthy',
  'analysisStorm',
  'simulation',
  'simulationCi95',
  'absGap',
] as const;

/** A row's cells under {@link FIGURE_COLUMNS}. */
export function figureCells(r: FigureRow): (number | string)[] {
  return [
    r.o.report.converged ? 'yes' : 'no',
    stateList(r.o),
    r.o.report.tippedAt ?? '',
    r.cls,
    r.k,
    r.pred,
    r.predHealthy,
    r.predStorm,
    r.sim,
    r.simCi95,
    r.gap,
  ];
}
