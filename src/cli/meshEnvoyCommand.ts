import { join } from 'node:path';
import type { Command } from 'commander';
import { type EnvoyClassBudget, envoySidecars } from '../deploy/envoy.js';
import { envoyLimits } from '../deploy/envoyGrpcLimits.js';
import { kubernetesNames } from '../deploy/kubernetesNames.js';
import { meshPlan } from '../deploy/meshPlan.js';
import { integerIn, loadNetwork, type NetworkSource } from './input.js';
import {
  checkNamespace,
  fileStem,
  generatedBy,
  meshYaml,
  writeGeneratedFiles,
} from './meshFiles.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry mesh envoy`. */
export interface MeshEnvoyOptions extends NetworkSource {
  /** Write SERVICE.envoy.yaml and SERVICE.xds.json per service into this directory. */
  readonly out?: string;
  /** One JSON document instead of YAML. */
  readonly json?: boolean;
  /** `--retry-budget high=20,low=5`: per-class clusters, each with its class's retry budget. */
  readonly retryBudget?: string;
  /** `--retry-budget-min N`: retries always allowed per class cluster (Envoy's default 3). */
  readonly retryBudgetMin?: number;
  /** Reach each upstream at its Kubernetes Service in this namespace (`B.NS.svc.cluster.local`). */
  readonly namespace?: string;
}

/**
 * Parses `--retry-budget high=20,low=5` (percent of the class's active requests that may be
 * retrying at once; `*` names every class not named otherwise) into per-class budgets.
 * @throws UsageError on anything but `NAME=PERCENT` pairs with a percentage in [0, 100].
 */
export function parseClassBudgets(
  text: string,
  classes: readonly string[],
  minRetryConcurrency: number | undefined,
): Record<string, EnvoyClassBudget> {
  const percents = new Map<string, number>();
  for (const part of text.split(',')) {
    const match = /^\s*([^=\s]+)\s*=\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(part);
    const percent = match ? Number(match[2]) : Number.NaN;
    if (!match || !(percent <= 100)) {
      throw new UsageError(
        `--retry-budget: expected CLASS=PERCENT pairs separated by commas (0 to 100), got "${part}"`,
      );
    }
    const name = match[1] as string;
    if (percents.has(name)) {
      throw new UsageError(`--retry-budget: class "${name}" is given twice; give each class once`);
    }
    if (name !== '*' && !classes.includes(name)) {
      throw new UsageError(
        `--retry-budget: the network has no class "${name}" (classes: ${classes.join(', ')})`,
      );
    }
    percents.set(name, percent);
  }
  const budgets: Record<string, EnvoyClassBudget> = {};
  for (const className of classes) {
    const percent = percents.get(className) ?? percents.get('*');
    if (percent === undefined) continue;
    budgets[className] = {
      budgetPercent: percent,
      ...(minRetryConcurrency !== undefined && { minRetryConcurrency }),
    };
  }
  return budgets;
}

/**
 * `difftry mesh envoy FILE`: the sidecar Envoy of every service (see `envoySidecars`). Without
 * `--out`, prints the bootstraps as YAML documents separated by `---` (or, with `--json`, one
 * document `{ "envoy": { SERVICE: { bootstrap, xds } } }`); with `--out DIR`, writes
 * `SERVICE.envoy.yaml` (the bootstrap, for `envoy -c`) and `SERVICE.xds.json` (the same
 * listeners and clusters as xDS DiscoveryResponses) per service. The YAML files start with a
 * comment naming the command that made them; the xDS documents say it in `version_info`.
 * @returns what to print on stdout.
 */
export async function meshEnvoyCommand(options: MeshEnvoyOptions): Promise<string> {
  const network = await loadNetwork(options);
  if (options.retryBudgetMin !== undefined && options.retryBudget === undefined) {
    throw new UsageError('--retry-budget-min needs --retry-budget (the classes to give budgets)');
  }
  const plan = meshPlan(network);
  const classBudgets =
    options.retryBudget === undefined
      ? undefined
      : parseClassBudgets(options.retryBudget, plan.classes, options.retryBudgetMin);
  const command = generatedBy('envoy', options, [
    ...(options.namespace !== undefined ? [`--namespace ${options.namespace}`] : []),
    ...(options.retryBudget !== undefined ? [`--retry-budget ${options.retryBudget}`] : []),
    ...(options.retryBudgetMin !== undefined
      ? [`--retry-budget-min ${options.retryBudgetMin}`]
      : []),
  ]);
  let upstreamHost: ((service: string) => string) | undefined;
  if (options.namespace !== undefined) {
    const namespace = checkNamespace(options.namespace);
    let names: ReadonlyMap<string, string>;
    try {
      names = kubernetesNames(plan);
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(error.message, { cause: error });
      throw error;
    }
    upstreamHost = (service) => `${names.get(service)}.${namespace}.svc.cluster.local`;
  }
  const sidecars = envoySidecars(plan, {
    ...(classBudgets !== undefined && { classBudgets }),
    ...(upstreamHost !== undefined && { upstreamHost }),
  }).map((sidecar) => ({
    ...sidecar,
    xds: {
      listeners: { ...sidecar.xds.listeners, version_info: command },
      clusters: { ...sidecar.xds.clusters, version_info: command },
    },
  }));
  const notes = envoyLimits(plan)
    .map((line) => `# Note: ${line}\n`)
    .join('');
  const yaml = (service: string, bootstrap: Record<string, unknown>) =>
    `# Generated by: ${command}\n# The sidecar Envoy of ${service} (envoy -c FILE); regenerate rather than edit. See docs/mesh-envoy.md.\n${notes}${meshYaml(bootstrap)}`;
  if (options.out === undefined) {
    if (options.json) {
      return JSON.stringify(
        {
          envoy: Object.fromEntries(
            sidecars.map((s) => [s.service, { bootstrap: s.bootstrap, xds: s.xds }]),
          ),
        },
        null,
        2,
      );
    }
    return sidecars.map((s) => yaml(s.service, s.bootstrap)).join('---\n');
  }
  const out = options.out;
  const files = sidecars.flatMap((s) => [
    {
      path: join(out, `${fileStem(s.service)}.envoy.yaml`),
      text: yaml(s.service, s.bootstrap),
      service: s.service,
      what: `Envoy of ${s.service}`,
    },
    {
      path: join(out, `${fileStem(s.service)}.xds.json`),
      text: `${JSON.stringify(s.xds, null, 2)}\n`,
      service: s.service,
      what: `Envoy of ${s.service}`,
    },
  ]);
  return writeGeneratedFiles(files, out, options.json);
}

/** Registers `difftry mesh envoy FILE` under the `mesh` command. */
export function registerMeshEnvoyCommand(mesh: Command): void {
  mesh
    .command('envoy')
    .description(
      "every service's sidecar Envoy: per-class routes and retry policies, admission, edge",
    )
    .argument('[file]', 'network file (YAML or JSON)')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option(
      '--out <dir>',
      'write SERVICE.envoy.yaml and SERVICE.xds.json files into this directory',
    )
    .option(
      '--retry-budget <class=percent,...>',
      "one cluster per class and upstream, each with its class's Envoy retry budget (high=20,low=5; * for every class)",
    )
    .option(
      '--retry-budget-min <n>',
      'retries always allowed per class cluster (Envoy default 3)',
      integerIn('--retry-budget-min', 0, 4_294_967_295),
    )
    .option(
      '--namespace <ns>',
      'reach each upstream at its Kubernetes Service in this namespace (NAME.NS.svc.cluster.local)',
    )
    .option('--json', 'one JSON document instead of YAML')
    .addHelpText(
      'after',
      '\nEach request to an upstream matches the route of its class (x-priority, any case), whose\n' +
        "retry_policy has that class's limit at the hop; a request with no or an unknown class gets\n" +
        "the default class's. Admission is the local cluster's circuit breaker; at the edge the\n" +
        "client's class header is replaced. docs/mesh-envoy.md has the mapping and its limits.\n\n" +
        'Examples:\n' +
        '  difftry mesh envoy examples/hotel-calls.yaml --out envoy/\n' +
        '  difftry mesh envoy examples/hotel-calls.yaml --retry-budget high=50,low=10\n' +
        '  difftry mesh envoy --example hotel --json',
    )
    .action(async (file: string | undefined, opts: Omit<MeshEnvoyOptions, 'file'>) => {
      const text = await meshEnvoyCommand({ ...opts, ...(file !== undefined && { file }) });
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
}
