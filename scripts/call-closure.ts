/**
 * Where the call-graph model misses a generated validation network (docs/validation.md, "Call
 * graphs"): the network is re-simulated exactly as scripts/validate-calls.ts does (same seed,
 * same substreams, same runs), and the model's equations are evaluated at the simulated attempt
 * rejections s. Per service, the miss of its law at that state, φ(ρ_model(s_sim)) − s_sim, splits
 * into two parts:
 *
 * - the **flows**: φ(ρ_model) − φ(ρ_sim), where ρ_model is the offered load the model's flows
 *   give at the simulated s and ρ_sim the load the runs measured (the retries and calls the model
 *   sends there);
 * - the **law**: φ(ρ_sim) − s_sim, the service's rejection law at the load it really had against
 *   the rejection it really had (a law for Poisson arrivals meeting arrivals that are not).
 *
 * It also says whether the runs had reached a steady state: the validation counts the attempts of
 * the requests that arrive in its window, wherever they fall, so in a steady state each service's
 * accepted attempts per second cannot exceed its capacity. A "carried load" ρ(1 − s) above 1
 * means the runs were still drifting (a storm building up through the window), and their mean is
 * no state of the network. With `--warmup S --duration S` the runs are longer (the same seeds and
 * substreams otherwise), and the analysis's end-to-end figures are set beside the simulation's.
 *
 * Run with `npx tsx scripts/call-closure.ts [--warmup S] [--duration S] [CASE …]` (CASE as in
 * docs/validation-calls.md, e.g. mubench-344; default: the µBench-like networks the validation
 * misses). About a minute a network at the validation's lengths. Fixed seeds: the same code
 * prints the same.
 */

import {
  CALL_VALIDATION_BACKOFF,
  CALL_VALIDATION_SEED,
  GENERATED_RUN,
  generatedCallGraph,
  generatedCallGraphIndex,
} from '../src/experiments/callValidation/callCases.js';
import { loadsAtS } from '../src/experiments/callValidation/equationsAtS.js';
import { simulateRuns } from '../src/experiments/simulation/simulateRuns.js';
import { analyzeNetwork } from '../src/model/network/analyzeNetwork.js';
import { compileCallPlan } from '../src/model/network/callPlan.js';
import { fixed } from '../src/report/numberFormat.js';

/** The generated networks docs/validation-calls.md has beyond 0.03 (revision 6b221e4). */
const MISSES = [
  'mubench-344',
  'mubench-316',
  'mubench-304',
  'mubench-302',
  'mubench-324',
  'mubench-348',
  'mubench-342',
  'mubench-340',
];
/** Services listed per network: those whose law misses most at the simulated state. */
const LISTED = 6;

/** `--warmup S` and `--duration S` (seconds), then the cases. */
function parseArguments(args: readonly string[]): {
  readonly warmup: number;
  readonly duration: number;
  readonly ids: readonly string[];
} {
  let warmup: number = GENERATED_RUN.warmup;
  let duration: number = GENERATED_RUN.duration;
  const ids: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--warmup' || arg === '--duration') {
      const value = Number(args[++i]);
      if (!(Number.isFinite(value) && value > 0)) {
        console.error(`call-closure: ${arg} takes a number of seconds > 0, got ${args[i]}`);
        process.exit(2);
      }
      if (arg === '--warmup') warmup = value;
      else duration = value;
    } else ids.push(arg);
  }
  return { warmup, duration, ids };
}

const { warmup, duration, ids } = parseArguments(process.argv.slice(2));
const wanted = ids.length > 0 ? ids : MISSES;
for (const id of wanted) {
  const index = generatedCallGraphIndex(id);
  if (index === undefined) {
    console.error(
      `call-closure: no generated validation network ${JSON.stringify(id)} (mubench-300 … dgg-349)`,
    );
    process.exit(2);
  }
  const { network } = generatedCallGraph(index);
  const simulated = simulateRuns(
    network,
    {
      duration,
      warmup,
      seed: CALL_VALIDATION_SEED,
      backoff: CALL_VALIDATION_BACKOFF,
      windowSeconds: GENERATED_RUN.window,
    },
    GENERATED_RUN.replications,
    GENERATED_RUN.replications * index,
  );
  const names = network.services.map((s) => s.name);
  const sSim = names.map((name) => simulated.services[name]?.s.mean ?? 0);
  const rhoSim = names.map((name) => simulated.services[name]?.rho.mean ?? 0);
  const plan = compileCallPlan(network);
  const rhoModel = loadsAtS(network, sSim);
  const rows = names.map((name, j) => {
    const phi = plan.phi[j] as (rho: number) => number;
    const atModel = phi(rhoModel[j] as number);
    const atSim = phi(rhoSim[j] as number);
    return {
      name,
      queue: plan.queue[j] as number,
      rhoSim: rhoSim[j] as number,
      rhoModel: rhoModel[j] as number,
      sSim: sSim[j] as number,
      flows: atModel - atSim,
      law: atSim - (sSim[j] as number),
    };
  });
  rows.sort((a, b) => Math.abs(b.flows + b.law) - Math.abs(a.flows + a.law));
  const report = analyzeNetwork(network);
  const rejection = Object.entries(simulated.rejection)
    .map(
      ([cls, e]) =>
        `${cls} ${fixed(e.mean, 4)} ± ${fixed(e.ci95, 4)} (analysis ${fixed(report.endToEnd[cls]?.rejection ?? Number.NaN, 4)})`,
    )
    .join(', ');
  const carried = names
    .map((name, j) => ({ name, load: (rhoSim[j] as number) * (1 - (sSim[j] as number)) }))
    .sort((a, b) => b.load - a.load)
    .slice(0, 3)
    .map((c) => `${c.name} ${fixed(c.load, 3)}`)
    .join(', ');
  console.log(
    `\n${id} (${names.length} services; runs of ${warmup} s + ${duration} s): simulated end-to-end rejection ${rejection}`,
  );
  console.log(`largest carried load ρ(1 − s) of the runs: ${carried}`);
  console.log(
    '| service | m | ρ simulated | ρ of the model at s_sim | s simulated | miss | flows | law |',
  );
  console.log('| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows.slice(0, LISTED))
    console.log(
      `| ${r.name} | ${r.queue} | ${fixed(r.rhoSim, 4)} | ${fixed(r.rhoModel, 4)} | ${fixed(r.sSim, 4)} | ${fixed(r.flows + r.law, 4)} | ${fixed(r.flows, 4)} | ${fixed(r.law, 4)} |`,
    );
}
