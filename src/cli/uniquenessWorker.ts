/**
 * The work of `difftry verify-uniqueness`, one (graph, configuration) job at a time: run in the
 * main thread with `--threads 1`, or in worker threads, of which this file is also the entry.
 * A worker receives batches of jobs, posts one result per job and then asks for more.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { NetworkModel } from '../model/network/NetworkModel.js';
import { seededRandom } from '../model/random.js';
import {
  backEdgeCount,
  type ConfigurationCheck,
  checkConfiguration,
  configurationSeed,
  drawConfiguration,
  graphPlan,
} from '../model/uniqueness/index.js';
import { generateCyclic } from '../spec/generators/generateCyclic.js';
import { databaseCount } from '../spec/generators/muBenchTopology.js';
import { toNetworkModel } from '../spec/toNetworkModel.js';

/** The inputs that, with a job's indices, fix its result. */
export interface UniquenessSettings {
  /** The run's seed. */
  readonly seed: number;
  /** K, solves per configuration. */
  readonly inits: number;
  /** Most classes P of a configuration. */
  readonly classesMax: number;
}

/** One configuration of one graph. */
export interface UniquenessJob {
  readonly graph: number;
  readonly configuration: number;
}

/** What a job found; `network` is included only for a counterexample (to write it out). */
export interface UniquenessJobResult extends UniquenessJob, ConfigurationCheck {
  readonly network?: NetworkModel;
}

/** Messages between the main thread and a worker. */
export type ToWorker = { readonly type: 'batch'; readonly jobs: readonly UniquenessJob[] };
export type FromWorker =
  | { readonly type: 'result'; readonly result: UniquenessJobResult }
  | { readonly type: 'idle' };

/** How a worker recognises that it was started for this work (`workerData.kind`). */
export const UNIQUENESS_WORKER_KIND = 'difftry-verify-uniqueness';

/**
 * Runs one job: builds graph `job.graph` (a cyclic network from `generateCyclic`, planned by
 * `graphPlan`), draws configuration `job.configuration` on it and checks it from K initial
 * points. Depends only on the job and `settings`, never on the thread that runs it.
 * @param graphs - a cache of base networks by graph index, kept between jobs of one thread.
 */
export function runUniquenessJob(
  job: UniquenessJob,
  settings: UniquenessSettings,
  graphs: Map<number, NetworkModel> = new Map(),
): UniquenessJobResult {
  let base = graphs.get(job.graph);
  if (base === undefined) {
    base = baseNetwork(settings.seed, job.graph);
    // Jobs come graph by graph: keep only the latest so a long run does not hoard networks.
    graphs.clear();
    graphs.set(job.graph, base);
  }
  const random = seededRandom(configurationSeed(settings.seed, job.graph, job.configuration));
  const network = drawConfiguration(base, random, { maxClasses: settings.classesMax });
  const check = checkConfiguration(network, { inits: settings.inits, random });
  return { ...job, ...check, ...(check.distinct === undefined ? {} : { network }) };
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

if (!isMainThread && parentPort !== null && workerData?.kind === UNIQUENESS_WORKER_KIND) {
  const port = parentPort;
  const settings = workerData.settings as UniquenessSettings;
  const graphs = new Map<number, NetworkModel>();
  port.on('message', (message: ToWorker) => {
    for (const job of message.jobs) {
      const reply: FromWorker = { type: 'result', result: runUniquenessJob(job, settings, graphs) };
      port.postMessage(reply);
    }
    port.postMessage({ type: 'idle' } satisfies FromWorker);
  });
}
