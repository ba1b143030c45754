/**
 * The work of `difftry verify-uniqueness`, one (graph, configuration) job at a time: run in the
 * calling thread, and in worker threads, of which this file is also the entry. A worker receives
 * ranges of jobs, runs each range and posts its totals (and any counterexample) in one message.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { generateCyclic } from '../../config/generators/generateCyclic.js';
import { generateDgg } from '../../config/generators/generateDgg.js';
import { generateMuBench } from '../../config/generators/generateMuBench.js';
import { databaseCount } from '../../config/generators/muBenchTopology.js';
import { toNetworkModel } from '../../config/toNetworkModel.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import type { UniquenessGuarantee } from '../../model/network/structure.js';
import { type RandomSource, seededRandom } from '../../model/random.js';
import {
  addCheck,
  backEdgeCount,
  type CallConfigurationCheck,
  type ConfigurationCheck,
  callGraphPlan,
  checkCallConfiguration,
  checkConfiguration,
  configurationSeed,
  drawCallConfiguration,
  drawConfigurationWithGuarantee,
  EMPTY_TALLY,
  graphPlan,
  type UniquenessTally,
} from '../../model/uniqueness/index.js';

/**
 * Which networks the check draws: `routes`, cyclic routing networks (the paper's check), or
 * `calls`, call graphs with nested retries (µBench-like and DGG-like).
 */
export type UniquenessForm = 'routes' | 'calls';

/** The forms, in the order help text lists them. */
export const UNIQUENESS_FORMS: readonly UniquenessForm[] = ['routes', 'calls'];

/** The inputs that, with a job's indices, fix its result. */
export interface UniquenessSettings {
  /** The run's seed. */
  readonly seed: number;
  /** K, solves per configuration. */
  readonly inits: number;
  /** Most classes P of a configuration. */
  readonly classesMax: number;
  /** Which networks; default `routes`. */
  readonly form?: UniquenessForm;
  /**
   * Routing networks only: settle every start with `settleRouting` itself (bit for bit what
   * `solveRouting` gives) instead of the warm path; the benchmark's peer. Default false.
   */
  readonly exact?: boolean;
}

/** One configuration of one graph. */
export interface UniquenessJob {
  readonly graph: number;
  readonly configuration: number;
}

/** What a job found; `network` is included only for a counterexample (to write it out). */
export type UniquenessJobResult =
  | (UniquenessJob &
      ConfigurationCheck & { readonly form: 'routes'; readonly network?: NetworkModel })
  | (UniquenessJob &
      CallConfigurationCheck & { readonly form: 'calls'; readonly network?: NetworkModel });

/** The totals of a range of jobs, and its counterexamples in job order. */
export interface UniquenessRangeResult {
  readonly tally: UniquenessTally;
  readonly counterexamples: readonly UniquenessJobResult[];
}

/**
 * Messages between the calling thread and a worker: jobs are numbered graph by graph
 * (job j is configuration j mod M of graph ⌊j / M⌋), and a range is [first, end).
 */
export type ToWorker = { readonly type: 'range'; readonly first: number; readonly end: number };
export type FromWorker = { readonly type: 'done'; readonly result: UniquenessRangeResult };

/** What a worker is started with (`workerData`). */
export interface UniquenessWorkerData {
  readonly kind: typeof UNIQUENESS_WORKER_KIND;
  readonly settings: UniquenessSettings;
  /** M, configurations per graph, to turn a job number into its indices. */
  readonly configs: number;
}

/** How a worker recognises that it was started for this work (`workerData.kind`). */
export const UNIQUENESS_WORKER_KIND = 'difftry-verify-uniqueness';

/**
 * Runs one job: draws its configuration ({@link drawUniquenessConfiguration}) and checks it from
 * K initial points. Depends only on the job and `settings`, never on the thread that runs it.
 * @param graphs - a cache of base networks by graph index, kept between jobs of one thread.
 */
export function runUniquenessJob(
  job: UniquenessJob,
  settings: UniquenessSettings,
  graphs: Map<number, NetworkModel> = new Map(),
): UniquenessJobResult {
  const { network, random, form, guarantee } = drawUniquenessConfiguration(job, settings, graphs);
  if (form === 'calls') {
    const check = checkCallConfiguration(network, { inits: settings.inits, random });
    return { ...job, ...check, form, ...(check.distinct === undefined ? {} : { network }) };
  }
  const check = checkConfiguration(network, {
    inits: settings.inits,
    random,
    ...(guarantee === undefined ? {} : { guarantee }),
    ...(settings.exact === true ? { exact: true } : {}),
  });
  return { ...job, ...check, form, ...(check.distinct === undefined ? {} : { network }) };
}

/**
 * The network of a job, and the random source its initial points are then drawn from: graph
 * `job.graph` (a cyclic routing network from `generateCyclic` planned by `graphPlan`, or with
 * `form: 'calls'` a call graph from `generateMuBench`/`generateDgg` planned by `callGraphPlan`),
 * with configuration `job.configuration` drawn on it from the configuration's own seed; for a
 * routing network also its uniqueness guarantee, which the draw derives anyway.
 * @param graphs - a cache of base networks by graph index; only the latest graph is kept.
 */
export function drawUniquenessConfiguration(
  job: UniquenessJob,
  settings: UniquenessSettings,
  graphs: Map<number, NetworkModel> = new Map(),
): {
  network: NetworkModel;
  random: RandomSource;
  form: UniquenessForm;
  guarantee?: UniquenessGuarantee;
} {
  const form = settings.form ?? 'routes';
  let base = graphs.get(job.graph);
  if (base === undefined) {
    base =
      form === 'calls'
        ? baseCallGraph(settings.seed, job.graph)
        : baseNetwork(settings.seed, job.graph);
    // Jobs come graph by graph: keep only the latest so a long run does not hoard networks.
    graphs.clear();
    graphs.set(job.graph, base);
  }
  const random = seededRandom(configurationSeed(settings.seed, job.graph, job.configuration));
  const options = { maxClasses: settings.classesMax };
  if (form === 'calls')
    return { network: drawCallConfiguration(base, random, options), random, form };
  return { ...drawConfigurationWithGuarantee(base, random, options), random, form };
}

/**
 * Runs jobs `first` … `end − 1` (numbered graph by graph, `configs` per graph) and sums them.
 * @param graphs - as for {@link runUniquenessJob}.
 */
export function runUniquenessRange(
  first: number,
  end: number,
  settings: UniquenessSettings,
  configs: number,
  graphs: Map<number, NetworkModel> = new Map(),
): UniquenessRangeResult {
  let tally = EMPTY_TALLY;
  const counterexamples: UniquenessJobResult[] = [];
  for (let job = first; job < end; job++) {
    const result = runUniquenessJob(jobAt(job, configs), settings, graphs);
    tally = addCheck(tally, result);
    if (result.distinct !== undefined) counterexamples.push(result);
  }
  return { tally, counterexamples };
}

/** The indices of job number `job`, with `configs` configurations per graph. */
export function jobAt(job: number, configs: number): UniquenessJob {
  return { graph: Math.floor(job / configs), configuration: job % configs };
}

/** Graph `graph` of a run: the cyclic network its plan describes, with one class. */
function baseNetwork(seed: number, graph: number): NetworkModel {
  const plan = graphPlan(seed, graph);
  const treeSize = plan.services - databaseCount(plan.services, 2);
  const spec = generateCyclic({
    services: plan.services,
    classes: 1,
    seed: plan.generatorSeed,
    backEdges: backEdgeCount(plan.backEdgeShare, treeSize),
  });
  return toNetworkModel(spec);
}

/** Call graph `graph` of a run: the µBench-like or DGG-like graph its plan describes. */
function baseCallGraph(seed: number, graph: number): NetworkModel {
  const plan = callGraphPlan(seed, graph);
  const options = {
    services: plan.services,
    classes: 1,
    seed: plan.generatorSeed,
    form: 'calls',
  } as const;
  return toNetworkModel(plan.kind === 'dgg' ? generateDgg(options) : generateMuBench(options));
}

if (!isMainThread && parentPort !== null && workerData?.kind === UNIQUENESS_WORKER_KIND) {
  const port = parentPort;
  const { settings, configs } = workerData as UniquenessWorkerData;
  const graphs = new Map<number, NetworkModel>();
  port.on('message', (message: ToWorker) => {
    const result = runUniquenessRange(message.first, message.end, settings, configs, graphs);
    port.postMessage({ type: 'done', result } satisfies FromWorker);
  });
}
