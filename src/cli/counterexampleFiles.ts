import { join } from 'node:path';
import { networkYaml } from '../config/networkSpecOf.js';
import type { UniquenessJobResult } from '../experiments/uniqueness/uniquenessWorker.js';
import type { NetworkModel } from '../model/network/NetworkModel.js';
import {
  type CallFixedPointRun,
  DISTINCT_TOLERANCE,
  type FixedPointRun,
} from '../model/uniqueness/index.js';
import { makeOutputDirectory, type OutputFile, writeOutputFiles } from './outputPath.js';

/**
 * Writes each counterexample to `directory` (created if needed): the network as
 * `uniqueness-seedS-graphG-configC.yaml` (`uniqueness-calls-…` for a call graph), which
 * `difftry analyze` reads, and its two fixed points with their starts as `….fixed-points.json`
 * (for a call graph, the healthy state and the storm, each with its attempts per request and
 * completion). Returns the paths, in order.
 * @throws {UsageError} when a file cannot be written.
 */
export async function writeCounterexamples(
  counterexamples: readonly UniquenessJobResult[],
  seed: number,
  directory: string,
): Promise<{ network: string; fixedPoints: string }[]> {
  const paths: { network: string; fixedPoints: string }[] = [];
  const files: OutputFile[] = [];
  await makeOutputDirectory(directory, '--out');
  for (const c of counterexamples) {
    const { network } = c;
    if (network === undefined || c.distinct === undefined) continue;
    const formTag = c.form === 'calls' ? 'calls-' : '';
    const stem = join(
      directory,
      `uniqueness-${formTag}seed${seed}-graph${c.graph}-config${c.configuration}`,
    );
    const networkPath = `${stem}.yaml`;
    const fixedPointsPath = `${stem}.fixed-points.json`;
    const foundBy = ` Found by: difftry verify-uniqueness${c.form === 'calls' ? ' --form calls' : ''} --seed ${seed} (graph ${c.graph}, configuration ${c.configuration})`;
    const common = {
      seed,
      form: c.form,
      graph: c.graph,
      configuration: c.configuration,
      network: networkPath,
      guarantee: c.guarantee,
      tolerance: DISTINCT_TOLERANCE,
      difference: c.distinct.difference,
    };
    let header: string;
    let fixedPoints: object;
    if (c.form === 'routes') {
      const { first, second } = c.distinct;
      header = [
        foundBy,
        ` Runs from start ${first.init} and start ${second.init} converged to fixed points`,
        ` whose λin differ by ${c.distinct.difference.toExponential(3)} relative; see ${fixedPointsPath}.`,
        ` Re-run: difftry analyze ${networkPath}   (it starts at λin = γ, like start 0)`,
      ].join('\n');
      const named = (table: readonly (readonly number[])[] | undefined) =>
        table === undefined ? null : namedTable(network, table);
      const runJson = (run: FixedPointRun) => ({
        init: run.init,
        iterations: run.iterations,
        initialIn: named(run.initialIn),
        lambdaIn: named(run.lambdaIn),
      });
      fixedPoints = { ...common, first: runJson(first), second: runJson(second) };
    } else {
      const { healthy, storm } = c.distinct;
      header = [
        foundBy,
        ' A bistable call graph (a finding about the model, not a solver failure): from start',
        ` ${healthy.init} it settles healthy (${healthy.attemptsPerRequest.toFixed(2)} attempts per request, completion ${healthy.completion.toFixed(4)}),`,
        ` from start ${storm.init} in a retry storm (${storm.attemptsPerRequest.toFixed(2)} attempts per request, completion ${storm.completion.toFixed(4)});`,
        ` see ${fixedPointsPath}. Re-run: difftry analyze ${networkPath}   (it starts idle, s = 0)`,
      ].join('\n');
      const named = (values: readonly number[] | undefined) =>
        values === undefined
          ? null
          : Object.fromEntries(network.services.map((svc, i) => [svc.name, values[i] ?? 0]));
      const runJson = (run: CallFixedPointRun) => ({
        init: run.init,
        iterations: run.iterations,
        attemptsPerRequest: run.attemptsPerRequest,
        completion: run.completion,
        initialS: named(run.initialS),
        s: named(run.s),
      });
      fixedPoints = { ...common, healthy: runJson(healthy), storm: runJson(storm) };
    }
    files.push(
      { path: networkPath, text: networkYaml(network, header) },
      { path: fixedPointsPath, text: `${JSON.stringify(fixedPoints, null, 2)}\n` },
    );
    paths.push({ network: networkPath, fixedPoints: fixedPointsPath });
  }
  await writeOutputFiles(files, '--out');
  return paths;
}

/** A per-service, per-class table keyed by names: { service: { class: value } }. */
function namedTable(
  network: NetworkModel,
  table: readonly (readonly number[])[],
): Record<string, Record<string, number>> {
  return Object.fromEntries(
    network.services.map((s, i) => [
      s.name,
      Object.fromEntries(network.classes.map((c, p) => [c.name, table[i]?.[p] ?? 0])),
    ]),
  );
}
