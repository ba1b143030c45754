import { analyzeNetwork } from '../model/network/analyzeNetwork.js';
import type { NetworkReport } from '../model/network/NetworkReport.js';
import type { ModelName } from '../model/phi/Phi.js';
import { toNetworkModel } from '../spec/toNetworkModel.js';
import { loadNetwork, type NetworkSource } from './input.js';
import { fixed, formatTable, groupedRows } from './table.js';

/** Options of `difftry analyze`. */
export interface AnalyzeOptions extends NetworkSource {
  readonly json?: boolean;
  readonly model?: ModelName;
  readonly retries?: Record<string, number>;
}

/** `difftry analyze`: solves the model for a network and returns what to print on stdout. */
export async function analyzeCommand(options: AnalyzeOptions): Promise<string> {
  const network = await loadNetwork(options);
  const report = analyzeNetwork(
    toNetworkModel(network, { model: options.model, retries: options.retries }),
  );
  return options.json ? JSON.stringify(report, null, 2) : formatAnalysis(report);
}

/** The human-readable form of an analysis: a per-service table and an end-to-end table. */
export function formatAnalysis(report: NetworkReport): string {
  const serviceRows = groupedRows(
    report.services,
    (service) => service.classes,
    (name, service) => [name, service.model, fixed(service.rho), fixed(service.s)],
    (className, c) => [
      className,
      fixed(c.in, 2),
      fixed(c.attempts, 2),
      fixed(c.rejection),
      fixed(c.out, 2),
    ],
  );
  const services = formatTable(
    [
      { heading: 'service', alignRight: false },
      { heading: 'model', alignRight: false },
      { heading: 'ρ' },
      { heading: 's' },
      { heading: 'class', alignRight: false },
      { heading: 'in/s' },
      { heading: 'attempts/s' },
      { heading: 'rejection' },
      { heading: 'out/s' },
    ],
    serviceRows,
  );
  const endToEnd = formatTable(
    [
      { heading: 'class', alignRight: false },
      { heading: 'retries' },
      { heading: 'rejection' },
      { heading: 'completion' },
    ],
    report.classes.map((c) => {
      const e = report.endToEnd[c.name];
      return [
        c.name,
        String(c.retries),
        fixed(e?.rejection ?? Number.NaN),
        fixed(e?.completion ?? Number.NaN),
      ];
    }),
  );
  const status = report.converged
    ? `converged in ${report.iterations} iteration${report.iterations === 1 ? '' : 's'}`
    : 'did NOT converge';
  return `Services\n${services}\n\nEnd to end (${status})\n${endToEnd}`;
}
