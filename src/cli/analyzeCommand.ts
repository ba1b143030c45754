import { type Command, Option } from 'commander';
import {
  analyzeNetwork,
  usesCallSolver,
  usesTimedRouting,
} from '../model/network/analyzeNetwork.js';
import type { BranchesAlongSweep } from '../model/network/branchSweep.js';
import type { CallEquilibria, CallEquilibrium } from '../model/network/callEquilibria.js';
import type { NetworkReport } from '../model/network/NetworkReport.js';
import type { RoutingEquilibria } from '../model/network/routingEquilibria.js';
import { sweepEquilibria } from '../model/network/sweepEquilibria.js';
import {
  routingEquilibriaAt,
  sweepRoutingEquilibria,
} from '../model/network/sweepRoutingEquilibria.js';
import type { ModelName } from '../model/phi/Phi.js';
import { toNetworkModel } from '../spec/toNetworkModel.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { EXIT_NEGATIVE } from './exitCodes.js';
import {
  loadNetwork,
  type NetworkSource,
  parseModel,
  parseRetries,
  positiveNumber,
} from './input.js';
import { checkOutputPath, writeOutputFiles } from './outputPath.js';
import { applySweep, parseSweep } from './sweep.js';
import { fixed, formatTable, groupedRows } from './table.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry analyze`. */
export interface AnalyzeOptions extends NetworkSource {
  readonly json?: boolean;
  readonly model?: ModelName;
  readonly retries?: Record<string, number>;
  /** A per-try timeout for every class at every hop, ms. */
  readonly timeout?: number;
  /** `SERVICE.FIELD=FROM:TO:STEP`: one row per point and class. */
  readonly sweep?: string;
  /** Write the sweep as CSV to this file. */
  readonly csv?: string;
}

/** `difftry analyze`: solves the model for a network (or a sweep of it). */
export async function analyzeCommand(options: AnalyzeOptions): Promise<CommandOutput> {
  if (options.csv !== undefined) {
    if (options.sweep === undefined) throw new UsageError('--csv: only with --sweep');
    await checkOutputPath(options.csv, '--csv');
  }
  const network = await loadNetwork(options);
  const model = toNetworkModel(network, {
    model: options.model,
    retries: options.retries,
    timeoutMs: options.timeout,
  });
  if (options.sweep === undefined) {
    const report = analyzeNetwork(model);
    const stdout = options.json ? JSON.stringify(report, null, 2) : formatAnalysis(report);
    return report.converged
      ? { stdout }
      : {
          stdout,
          stderr: `the fixed point did not converge in ${report.iterations} iterations (residual ${report.residual.toExponential(2)})`,
          exitCode: EXIT_NEGATIVE,
        };
  }
  const sweep = parseSweep(options.sweep, model);
  const networkAt = (value: number) => applySweep(model, sweep, value);
  const loadRises = sweep.field !== 'capacity';
  // Call graphs and timed networks can be bistable: follow both branches along the sweep.
  const callBranches = usesCallSolver(model)
    ? sweepEquilibria(networkAt, sweep.values, { loadRises })
    : undefined;
  const routingBranches = usesTimedRouting(model)
    ? sweepRoutingEquilibria(networkAt, sweep.values, { loadRises })
    : undefined;
  const branches: BranchesAlongSweep<unknown> | undefined = callBranches ?? routingBranches;
  const pointEquilibria = (i: number): CallEquilibria | RoutingEquilibria | undefined => {
    const routing = routingBranches?.points[i];
    if (routing !== undefined) {
      const found = routingEquilibriaAt(routing);
      return found.equilibria.length > 0 ? found : undefined;
    }
    const point = callBranches?.points[i];
    const found: CallEquilibrium[] = [];
    if (point?.healthy !== undefined) found.push({ kind: 'healthy', solution: point.healthy });
    if (point?.storm !== undefined) found.push({ kind: 'storm', solution: point.storm });
    return found.length > 0 ? { equilibria: found, tips: [] } : undefined;
  };
  const points = sweep.values.map((value, i) => {
    const equilibria = pointEquilibria(i);
    return {
      value,
      report: analyzeNetwork(networkAt(value), equilibria === undefined ? {} : { equilibria }),
    };
  });
  const rows = points.flatMap(({ value, report }) =>
    report.classes.map((c) => {
      const storm = report.equilibria.find((e, k) => k > 0 && e.kind === 'storm');
      return {
        value,
        class: c.name,
        kind: report.equilibria[0]?.kind ?? 'healthy',
        rejection: report.endToEnd[c.name]?.rejection ?? Number.NaN,
        completion: report.endToEnd[c.name]?.completion ?? Number.NaN,
        stormRejection: storm?.endToEnd[c.name]?.rejection ?? Number.NaN,
        attemptsPerRequest: report.load.attemptsPerRequest,
        internalPerRequest: report.load.internalPerRequest,
        converged: report.converged,
      };
    }),
  );
  const bistable = rows.some((r) => Number.isFinite(r.stormRejection));
  let stderr: string | undefined;
  if (options.csv !== undefined) {
    const header =
      'parameter,value,class,state,rejection,completion,stormRejection,attemptsPerRequest,internalPerRequest,converged';
    const lines = rows.map((r) =>
      [
        sweep.target,
        r.value,
        r.class,
        r.kind,
        r.rejection,
        r.completion,
        Number.isFinite(r.stormRejection) ? r.stormRejection : '',
        r.attemptsPerRequest,
        r.internalPerRequest,
        r.converged,
      ].join(','),
    );
    await writeOutputFiles(
      [{ path: options.csv, text: `${[header, ...lines].join('\n')}\n` }],
      '--csv',
    );
    stderr = `wrote ${rows.length} rows to ${options.csv}`;
  }
  const classCount = model.classes.length;
  const ends = {
    ...(branches?.tipping === undefined ? {} : { tipping: branches.tipping }),
    ...(branches?.recovery === undefined ? {} : { recovery: branches.recovery }),
  };
  const stdout = options.json
    ? JSON.stringify(
        { sweep: { parameter: sweep.target, values: sweep.values, ...ends }, points },
        null,
        2,
      )
    : `${formatTable(
        [
          { heading: sweep.target },
          { heading: 'class', alignRight: false },
          { heading: 'state', alignRight: false },
          { heading: 'rejection' },
          { heading: 'completion' },
          ...(bistable ? [{ heading: 'storm rejection' }] : []),
          { heading: 'attempts/request' },
          { heading: 'internal/request' },
        ],
        rows.map((r, i) => [
          i % classCount === 0 ? String(r.value) : '',
          r.class,
          r.kind,
          fixed(r.rejection),
          fixed(r.completion),
          ...(bistable ? [Number.isFinite(r.stormRejection) ? fixed(r.stormRejection) : '—'] : []),
          fixed(r.attemptsPerRequest, 3),
          fixed(r.internalPerRequest, 3),
        ]),
      )}${branches === undefined ? '' : `\n\n${branchesText(sweep.target, loadRises, branches)}`}`;
  const failures = points.filter((p) => !p.report.converged).length;
  return failures === 0
    ? { stdout, stderr }
    : { stdout, stderr: `${failures} sweep point(s) did not converge`, exitCode: EXIT_NEGATIVE };
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
      { heading: report.mode === 'calls' ? 'calls in/s' : 'in/s' },
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
    : `did NOT converge in ${report.iterations} iterations`;
  const { structure, load } = report;
  const radius = Object.entries(structure.spectralRadius)
    .map(([name, r]) => `${name} ${fixed(r, 3)}`)
    .join(', ');
  const shape = `${report.mode === 'calls' ? 'call graph' : 'routing'}, ${structure.dag ? 'a DAG' : `cyclic (ρ(F): ${radius}; ‖F‖∞ = ${fixed(structure.normInf, 3)})`}`;
  const notes = [
    report.mode === 'calls' || report.equilibria.length > 1 || structure.uniqueness === 'none'
      ? `${shape}; ${equilibriaText(report)}`
      : `${shape}; unique fixed point: ${uniquenessText(structure.uniqueness)}`,
    ...(report.swinging === undefined ? [] : [swingingText(report.swinging)]),
    `load: ${fixed(load.external, 2)} requests/s from outside, ${fixed(load.attempts, 2)} attempts/s in all; ` +
      `${fixed(load.attemptsPerRequest, 3)} attempts per request (${perSuccessText(load)}), ` +
      `${fixed(load.internalPerRequest, 3)} internal`,
  ];
  return `Services\n${services}\n\nEnd to end (${status})\n${endToEnd}\n\n${notes.join('\n')}`;
}

/**
 * Attempts per completed request, or why there is no such figure: where (almost) nothing
 * completes the ratio is a huge number that says only that (a storm completing 1e-13 of its
 * requests makes 1e13 attempts per completion).
 */
function perSuccessText(load: NetworkReport['load']): string {
  if (!(load.external > 0)) return 'no requests';
  const completedShare = load.attemptsPerRequest / load.attemptsPerSuccess;
  if (!(completedShare >= 1e-6)) return 'almost no request completes';
  return `${fixed(load.attemptsPerSuccess, 3)} per completed request`;
}

/**
 * Where a sweep's two branches end: "bistable from api.users = 21 to 70: tips above 70, recovers
 * below 21" (a capacity sweep tips below and recovers above).
 */
export function branchesText(
  target: string,
  loadRises: boolean,
  branches: BranchesAlongSweep<unknown>,
): string {
  const { tipping, recovery } = branches;
  const [up, down] = loadRises ? ['above', 'below'] : ['below', 'above'];
  const tips = tipping === undefined ? undefined : `tips ${up} ${target} = ${round(tipping)}`;
  const recovers =
    recovery === undefined ? undefined : `recovers ${down} ${target} = ${round(recovery)}`;
  const bistable = branches.points.some((p) => p.healthy !== undefined && p.storm !== undefined);
  if (tips === undefined && recovers === undefined) {
    return bistable
      ? 'bistable over the whole sweep: a healthy state and a storm at every point (neither branch ends inside it)'
      : 'one state at every point of the sweep (no storm branch apart from it)';
  }
  return `${bistable ? 'bistable: ' : ''}${[tips, recovers].filter((x) => x !== undefined).join('; ')}`;
}

/** A parameter value to four significant digits. */
function round(value: number): string {
  return String(Number(value.toPrecision(4)));
}

/**
 * What the analysis found of the equilibria: "bistable: healthy (high 0.2 %, low 1.1 %) or storm
 * (high 71 %, low 99 %)", or one state and how it was checked.
 */
export function equilibriaText(report: NetworkReport): string {
  const rejections = (e: NetworkReport['equilibria'][number]) =>
    report.classes
      .map((c) => `${c.name} ${percent(e.endToEnd[c.name]?.rejection ?? Number.NaN)}`)
      .join(', ');
  const [first, second] = report.equilibria;
  if (first !== undefined && second !== undefined) {
    return `bistable: ${first.kind} (${rejections(first)}) or ${second.kind} (${rejections(second)})`;
  }
  if (!report.converged) return 'no equilibrium found';
  const how =
    first?.stable === false ? ', found by continuation: the relaxation oscillates around it' : '';
  if (first?.kind === 'storm') {
    const tipped =
      report.tippedAt === undefined
        ? 'the state from idle was not found'
        : `the load raised from zero tips into it above ${fixed(100 * report.tippedAt, 1)} % of these rates`;
    return `one equilibrium, a retry storm (${first === undefined ? '' : rejections(first)}): ${tipped}${how}`;
  }
  if (report.stormUnsettled === true) {
    return `one equilibrium found, from idle${how}; the search from saturation did not settle, so a storm state is not ruled out`;
  }
  return `one equilibrium: the same state from idle and from saturation (uniqueness not proven)${how}`;
}

/** A rejection probability as a percentage for prose: 0.2 %, 71 %. */
function percent(p: number): string {
  if (!Number.isFinite(p)) return '—';
  const value = 100 * p;
  return `${value < 10 ? value.toFixed(1) : value.toFixed(0)} %`;
}

/** Where a call-graph solve found no rest. */
function swingingText(swinging: NonNullable<NetworkReport['swinging']>): string {
  const where = swinging
    .map((s) => `${s.service} (s ${fixed(s.low, 3)}–${fixed(s.high, 3)})`)
    .join(', ');
  return `not converged: the sweeps kept swinging at ${where}, and following the state from light load by continuation did not reach this load`;
}

function uniquenessText(guarantee: NetworkReport['structure']['uniqueness']): string {
  switch (guarantee) {
    case 'dag':
      return 'guaranteed (a DAG)';
    case 'norm':
      return 'guaranteed (‖F‖∞ < 1/(P − 1))';
    case 'class-independent':
      return 'guaranteed (class-independent routing, P ≤ 2)';
    case 'none':
      return 'not guaranteed by any known condition (see difftry verify-uniqueness)';
  }
}

/** Registers `difftry analyze` on the CLI: its flags, parsed and checked, and the call. */
export function registerAnalyzeCommand(program: Command, emit: Emit): void {
  program
    .command('analyze')
    .description('predict per-class, per-service and end-to-end rejection for a network file')
    .argument('[file]', 'network file (YAML or JSON)')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option('--json', 'print one JSON document on stdout')
    .option('--model <model>', 'φ at every service: fluid, mm1m or mixed', parseModel)
    .option(
      '--retries <limits>',
      "retry limits per class at every hop, e.g. high=5,low=1 ('*=2' for every class; istio-default: Istio's default, 2 for all)",
      parseRetries,
    )
    .addOption(
      new Option(
        '--timeout <ms>',
        "a per-try timeout at every hop, every class (replaces the classes' timeoutMs): an " +
          'accepted attempt not back in time is abandoned by its caller while the service still does its work',
      ).argParser(positiveNumber('--timeout')),
    )
    .option('--sweep <spec>', "vary one arrival rate or capacity, e.g. 'frontend.low=50:250:25'")
    .option('--csv <file>', 'with --sweep: also write the rows as CSV to this file')
    .action(async (file: string | undefined, opts) => {
      emit(await analyzeCommand({ file, ...opts }));
    });
}
