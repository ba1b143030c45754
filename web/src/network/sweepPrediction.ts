import { type NetworkSpec, toNetworkModel } from 'difftry/config';
import {
  type AnalyzedSweepPoint,
  analyzeSweep,
  type BranchesAlongSweep,
  type SweptParameter,
  uniformLimits,
} from 'difftry/model';

/** The two retry configurations of the sweep chart. */
export type SweepConfigurationKey = 'difftry' | 'uniform';

/** One class's end-to-end rejection at one swept value, on each branch the analysis found there. */
export interface BranchPoint {
  readonly value: number;
  /** On the healthy branch (the state an idle network reaches); absent past the tipping load. */
  readonly healthy?: number;
  /** On the storm branch (a retry storm); absent where there is none. */
  readonly storm?: number;
}

/** One retry configuration's predicted curves. */
export interface SweepConfiguration {
  readonly key: SweepConfigurationKey;
  /** `DiffTry k = (5, 1)`, `uniform k = (5, 5)`. */
  readonly label: string;
  /** Per class name, the branch points in the order of the values. */
  readonly classes: Readonly<Record<string, readonly BranchPoint[]>>;
  /** Where a bistable configuration's branches end (absent where its state is unique). */
  readonly branches?: Pick<BranchesAlongSweep<unknown>, 'tipping' | 'recovery' | 'points'>;
}

/**
 * The sweep chart's prediction over the swept values: DiffTry and uniform limits, or only the
 * first where the file's limits are uniform already.
 */
export interface SweepPrediction {
  readonly values: readonly number[];
  readonly configurations: readonly SweepConfiguration[];
}

/**
 * Predicts the sweep chart (the DiffTry paper's Figure 5 for any network): end-to-end rejection
 * per class as one arrival rate is swept, under the file's retry limits (DiffTry) and under
 * uniform limits (every class the highest class's k at every hop, `uniformLimits`), each by
 * `analyzeSweep`, the code behind `difftry analyze --sweep`, which follows the healthy and the
 * storm branch where the configuration can be bistable. Where the file's limits are uniform
 * already (every hop gives every class the highest class's k), there is one configuration.
 * @param network the file with the view's parameters written in
 */
export function predictSweep(
  network: NetworkSpec,
  parameter: SweptParameter,
  values: readonly number[],
): SweepPrediction {
  const model = toNetworkModel(network);
  const uniform = uniformLimits(model);
  const limits = (m: typeof model) => `k = (${m.classes.map((c) => c.retryLimit).join(', ')})`;
  const configuration = (
    key: SweepConfigurationKey,
    label: string,
    m: typeof model,
  ): SweepConfiguration => {
    const { points, branches } = analyzeSweep(m, parameter, values);
    return {
      key,
      label,
      classes: Object.fromEntries(m.classes.map((c) => [c.name, branchPoints(points, c.name)])),
      ...(branches === undefined ? {} : { branches }),
    };
  };
  const alreadyUniform = model.services.every((service, i) =>
    service.retryLimits.every((k, p) => k === uniform.services[i]?.retryLimits[p]),
  );
  return {
    values,
    configurations: alreadyUniform
      ? [configuration('uniform', `uniform ${limits(uniform)}, the file's limits`, uniform)]
      : [
          configuration('difftry', `DiffTry ${limits(model)}`, model),
          configuration('uniform', `uniform ${limits(uniform)}`, uniform),
        ],
  };
}

/** One class's rejection on each branch at every point of a swept analysis. */
function branchPoints(points: readonly AnalyzedSweepPoint[], className: string): BranchPoint[] {
  return points.map(({ value, report }) => {
    const on = (kind: 'healthy' | 'storm') =>
      report.equilibria.find((e) => e.kind === kind)?.endToEnd[className]?.rejection;
    const healthy = on('healthy');
    const storm = on('storm');
    return {
      value,
      ...(healthy === undefined ? {} : { healthy }),
      ...(storm === undefined ? {} : { storm }),
    };
  });
}
