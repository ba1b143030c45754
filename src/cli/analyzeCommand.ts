import { type Command, Option } from 'commander';
import { toNetworkModel } from '../config/toNetworkModel.js';
import type { AnalysisProgress } from '../model/network/AnalysisProgress.js';
import { analyzeNetwork } from '../model/network/analyzeNetwork.js';
import { analyzeSweep } from '../model/network/analyzeSweep.js';
import { chooseLaw, LAW_CHOICES, type LawChoice } from '../model/network/lawChoice.js';
import type { NetworkReport } from '../model/network/NetworkReport.js';
import { orbitLawRefusal } from '../model/network/orbitLaw.js';
import { loadRisesWith } from '../model/network/SweptParameter.js';
import type { SweepRamp } from '../model/network/sweepRamp.js';
import type { ModelName } from '../model/phi/Phi.js';
import { branchesText } from '../report/branchesText.js';
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
import { type ProgressReporter, progressOnStderr } from './progress.js';
import { parseSweep } from './sweep.js';
import { fixed, formatTable, groupedRows } from './table.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry analyze`. */
export interface AnalyzeOptions extends NetworkSource {
  readonly json?: boolean;
  readonly model?: ModelName;
  readonly retries?: Record<string, number>;
  /** A per-try timeout for every class at every hop, ms. */
  readonly timeout?: number;
  /**
   * Call graphs: read the next of a caller's sequential calls to a service without calls of its
   * own as a follow-up, let in (`NetworkModel.followUps`; docs/model.md, "Follow-up calls").
   */
  readonly followUps?: boolean;
  /** `SERVICE.FIELD=FROM:TO:STEP`: one row per point and class. */
  readonly sweep?: string;
  /** Write the sweep as CSV to this file. */
  readonly csv?: string;
  /**
   * The law (`--law`): auto (default: the orbit law where it is measured nearer the simulator,
   * the mean field elsewhere; `chooseLaw`), mean-field or orbit.
   */
  readonly law?: LawChoice;
  /**
   * With `--sweep` and the orbit law: a ramp over the swept values this many seconds each way;
   * the report says where it leaves the healthy state and the storm.
   */
  readonly ramp?: number;
  /**
   * With `--ramp`: read the ramp as a dashboard's windows this many seconds long do (a state is
   * also left when one of its windows reads the other side of half the requests failing).
   */
  readonly window?: number;
  /**
   * Where the progress of a long analysis goes; default a line on stderr once it has run 2 s
   * (tests pass their own). Never stdout.
   */
  readonly progress?: ProgressReporter;
}

/** Why `--ramp` was refused: it needs a sweep and the orbit law. */
const RAMP_ONLY =
  '--ramp: only with --sweep and the orbit law (--law orbit, or auto where it takes the orbit law): the ramp is read from the orbit law’s escape times along the sweep';

/** An analysis that has run this long shows where it is on stderr. */
const PROGRESS_AFTER_MS = 2000;

/** What each phase of the analysis is doing, as the progress line says it. */
const PHASE_TEXT: Record<AnalysisProgress['phase'], string> = {
  structure: 'checking the structure',
  healthy: 'raising the load from zero (healthy state)',
  storm: 'searching from saturation (storm state)',
  orbit: 'solving the orbit law',
  report: 'writing the report',
};

/** `difftry analyze`: solves the model for a network (or a sweep of it). */
export async function analyzeCommand(options: AnalyzeOptions): Promise<CommandOutput> {
  if (options.ramp !== undefined && options.sweep === undefined) throw new UsageError(RAMP_ONLY);
  if (options.window !== undefined && options.ramp === undefined)
    throw new UsageError(
      '--window: only with --ramp (the windows a ramp over the sweep is read in)',
    );
  if (options.csv !== undefined) {
    if (options.sweep === undefined) throw new UsageError('--csv: only with --sweep');
    await checkOutputPath(options.csv, '--csv');
  }
  const network = await loadNetwork(options);
  const parsed = toNetworkModel(network, {
    model: options.model,
    retries: options.retries,
    timeoutMs: options.timeout,
  });
  if (options.followUps === true && parsed.mode !== 'calls')
    throw new UsageError(
      '--follow-ups: only for a call graph (services with calls or branches); this network routes',
    );
  const model = options.followUps === true ? { ...parsed, followUps: true } : parsed;
  const law = options.law ?? 'auto';
  if (law === 'orbit') {
    const refusal = orbitLawRefusal(model);
    if (refusal !== undefined) throw new UsageError(`--law orbit: ${refusal}`);
  }
  const orbit = chooseLaw(model, law).law === 'orbit';
  if (options.ramp !== undefined && !orbit) {
    throw new UsageError(RAMP_ONLY);
  }
  if (options.sweep === undefined) {
    const progress =
      options.progress ??
      progressOnStderr('analyze:', {
        delayMs: PROGRESS_AFTER_MS,
        format: '{phase}{count}',
      });
    let report: NetworkReport;
    try {
      // The fraction is unknown (how many sweeps a solve takes is not): the line shows the phase
      // and the sweeps so far (the orbit law's passes over the services instead).
      report = analyzeNetwork(model, {
        law,
        onProgress: ({ phase, sweeps, detail }) =>
          progress.update(0, {
            phase: detail === undefined ? PHASE_TEXT[phase] : `${PHASE_TEXT[phase]}: ${detail}`,
            sweeps,
            count: orbit
              ? phase === 'orbit'
                ? `, pass ${sweeps + 1} over the services`
                : ''
              : `, ${sweeps} sweeps`,
          }),
      });
    } finally {
      progress.stop();
    }
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
  const loadRises = loadRisesWith(sweep);
  if (options.ramp !== undefined && sweep.values.length < 2) {
    throw new UsageError('--ramp: the sweep needs at least two values');
  }
  const sweepProgress =
    options.progress ??
    progressOnStderr('analyze:', {
      delayMs: PROGRESS_AFTER_MS,
      format: 'point {value} of {total}',
    });
  let swept: ReturnType<typeof analyzeSweep>;
  try {
    swept = analyzeSweep(model, sweep, sweep.values, {
      law,
      ...(options.ramp === undefined ? {} : { rampSeconds: options.ramp }),
      ...(options.window === undefined ? {} : { windowSeconds: options.window }),
      onPoint: (done, total) => sweepProgress.update(done / total, { value: done, total }),
    });
  } finally {
    sweepProgress.stop();
  }
  const { points, branches, ramp } = swept;
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
        {
          sweep: {
            parameter: sweep.target,
            values: sweep.values,
            ...ends,
            ...(ramp === undefined ? {} : { ramp }),
          },
          points,
        },
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
      )}${branches === undefined ? '' : `\n\n${branchesText(sweep.target, loadRises, branches)}`}${
        ramp === undefined ? '' : `\n\n${rampText(sweep.target, ramp)}`
      }${orbitSweepHint(sweep.target, points, ramp !== undefined)}${points[0] === undefined ? '' : `\n\nlaw: ${points[0].report.law} (${points[0].report.lawReason})`}`;
  const failures = points.filter((p) => !p.report.converged).length;
  return failures === 0
    ? { stdout, stderr }
    : { stdout, stderr: `${failures} sweep point(s) did not converge`, exitCode: EXIT_NEGATIVE };
}

/**
 * Under the orbit law each point of a sweep is solved on its own, so no branch is followed and no
 * tipping or recovery load is read without a ramp: where some point has two states, how to get
 * them (a blank line first), else nothing.
 */
export function orbitSweepHint(
  target: string,
  points: readonly { readonly value: number; readonly report: NetworkReport }[],
  ramped: boolean,
): string {
  if (ramped || points[0]?.report.law !== 'orbit') return '';
  const bistable = points.filter((p) => p.report.equilibria.length > 1).map((p) => p.value);
  if (bistable.length === 0) return '';
  const where =
    bistable.length === points.length
      ? 'at every swept value'
      : `at ${target} = ${bistable.join(', ')} of the swept values`;
  return `\n\nbistable ${where} (the orbit law solves each point on its own): add --ramp SECONDS for where a ramp over the sweep leaves each state, or --law mean-field for the mean field's tipping and recovery loads`;
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
    ...lastsText(report),
    `law: ${report.law} (${report.lawReason})`,
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

/**
 * Under the orbit law, how long each of a bistable service's states lasts on average: "how long
 * each state lasts: api healthy 17.9 h, storm 39.8 min" (none where no service has two).
 */
export function lastsText(report: NetworkReport): string[] {
  const parts: string[] = [];
  for (const name of Object.keys(report.services)) {
    const states = report.equilibria
      .map((e) => ({ kind: e.kind, seconds: e.services[name]?.escapeSeconds }))
      .filter((x): x is { kind: 'healthy' | 'storm'; seconds: number } => x.seconds !== undefined)
      .map((x) => `${x.kind} ${durationText(x.seconds)}`);
    if (states.length > 0) parts.push(`${name} ${states.join(', ')}`);
  }
  return parts.length === 0 ? [] : [`how long each state lasts: ${parts.join('; ')}`];
}

/** Seconds for prose: 850 ms, 42.0 s, 17.9 min, 5.2 h, 3.1 days, 4.0e+3 years. */
export function durationText(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'for good';
  if (seconds < 1) return `${(seconds * 1000).toFixed(0)} ms`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  if (seconds < 3600) return `${(seconds / 60).toFixed(1)} min`;
  if (seconds < 86_400) return `${(seconds / 3600).toFixed(1)} h`;
  const days = seconds / 86_400;
  if (days < 365) return `${days.toFixed(1)} days`;
  const years = days / 365.25;
  return `${years < 1000 ? years.toFixed(1) : years.toExponential(1)} years`;
}

/**
 * Where a ramp over the sweep leaves each state, from the orbit law's escape times: "on a 600 s
 * ramp of api.high up, the healthy state is left at 52.1 on average (100 % of ramps, half by
 * 51.8); back down, the storm at 21.4 (…)".
 */
export function rampText(target: string, ramp: SweepRamp): string {
  const leaves = (e: SweepRamp['tipping'], what: string) =>
    e.left > 0
      ? `${what} is left at ${fixed(e.meanLoad, 2)} on average (${fixed(100 * e.left, 0)} % of ramps${
          Number.isFinite(e.medianLoad) ? `, half by ${fixed(e.medianLoad, 2)}` : ''
        })`
      : `${what} lasts the whole ramp`;
  const how =
    ramp.windowSeconds === undefined
      ? "orbit law's escape times"
      : `orbit law's escape times and ${fixed(ramp.windowSeconds, 0)} s windows read at half the requests failing`;
  return `on a ${fixed(ramp.seconds, 0)} s ramp of ${target} over the sweep (${how}): going up, the ${leaves(ramp.tipping, 'healthy state')}; coming down, the ${leaves(ramp.recovery, 'storm')}`;
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
    .addOption(
      new Option(
        '--law <law>',
        'auto (default): orbit where it is measured nearer the simulator (per-try timeouts at mm1m or mixed services standing alone or routing, no routing cycle), mean-field elsewhere; mean-field: the queue at the mean load; orbit: the requests waiting to retry and the queue as one Markov chain, which keeps the retry load’s swing (not call graphs yet; docs/model.md)',
      ).choices(LAW_CHOICES),
    )
    .option(
      '--follow-ups',
      'call graphs: the next of sequential calls to a service without calls of its own comes as the one before is back, and is let in (nearer the simulator where such services saturate; docs/model.md, "Follow-up calls")',
    )
    .option('--sweep <spec>', "vary one arrival rate or capacity, e.g. 'frontend.low=50:250:25'")
    .option('--csv <file>', 'with --sweep: also write the rows as CSV to this file')
    .addOption(
      new Option(
        '--ramp <seconds>',
        'with --sweep and the orbit law: where a ramp over the swept values, this long each way, leaves the healthy state going up and the storm coming down (from the escape times)',
      ).argParser(positiveNumber('--ramp')),
    )
    .addOption(
      new Option(
        '--window <seconds>',
        "with --ramp: read it as a dashboard's windows this long do — each state is also left when one of its windows reads the other side of half the requests failing (few requests a window, and the retry load's swing, make a window read a storm before the state is left; docs/model.md)",
      ).argParser(positiveNumber('--window')),
    )
    .action(async (file: string | undefined, opts) => {
      emit(await analyzeCommand({ file, ...opts }));
    });
}
