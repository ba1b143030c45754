import { type NetworkSpec, toNetworkModel } from 'difftry/config';
import { analyzeNetwork, type NetworkModel, type NetworkReport } from 'difftry/model';
import { type NetworkParameters, withParameters } from './NetworkParameters.js';

/** A network solved under the view's parameters: its analysis model and the report. */
export interface NetworkSolution {
  readonly model: NetworkModel;
  readonly report: NetworkReport;
}

/**
 * Solves a network file under the view's parameters, by the CLI's own path (`toNetworkModel`,
 * then `analyzeNetwork`): the report is what `difftry analyze --law mean-field --json` prints for
 * the file with the parameters written in. Pure and synchronous, so a benchmark can time it
 * alone; the view runs it on every slider event, which is why it keeps to the mean field (the
 * orbit law, which `analyze` takes by default for timed M/M/1/m services, takes up to seconds).
 * @throws as `toNetworkModel` and `analyzeNetwork` do, for a network the analysis refuses.
 * @example
 * ```ts
 * const { report } = solveNetwork(hotel, { ...fileParameters(hotel), arrivals: { high: 50, low: 200 } });
 * report.endToEnd.high?.rejection;
 * ```
 */
export function solveNetwork(network: NetworkSpec, parameters: NetworkParameters): NetworkSolution {
  const model = toNetworkModel(withParameters(network, parameters));
  return { model, report: analyzeNetwork(model, { law: 'mean-field' }) };
}
