import type { Command } from 'commander';
import { kubernetesNames } from '../deploy/kubernetesNames.js';
import type { MeshManifest } from '../deploy/kubernetesObject.js';
import { linkerdManifest } from '../deploy/linkerd.js';
import { meshPlan } from '../deploy/meshPlan.js';
import { loadNetwork, type NetworkSource } from './input.js';
import { checkNamespace, fileStem, generatedBy, manifestOutput } from './meshFiles.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry mesh linkerd`. */
export interface MeshLinkerdOptions extends NetworkSource {
  /** The namespace of every route; default `default`. */
  readonly namespace?: string;
  /** Write SERVICE.linkerd.yaml per called service into this directory. */
  readonly out?: string;
  /** One JSON document `{ limits, objects }` instead of YAML. */
  readonly json?: boolean;
}

const DOC = 'docs/mesh-linkerd.md';

/**
 * `difftry mesh linkerd FILE`: the Linkerd (2.16+) routes of every called service (see
 * `linkerdManifest`): per class an HTTPRoute matching the class header, with that class's
 * retries as `retry.linkerd.io` annotations, and one for no or an unknown class. Without `--out`,
 * prints one YAML stream (or, with `--json`, one document `{ limits, objects }`); with
 * `--out DIR`, writes `SERVICE.linkerd.yaml` per service with routes. Every YAML output starts
 * with a comment naming the command, then what Linkerd cannot express.
 * @returns what to print on stdout.
 */
export async function meshLinkerdCommand(options: MeshLinkerdOptions): Promise<string> {
  const namespace = checkNamespace(options.namespace);
  const network = await loadNetwork(options);
  let names: ReadonlyMap<string, string>;
  let manifest: MeshManifest;
  try {
    const plan = meshPlan(network);
    names = kubernetesNames(plan);
    manifest = linkerdManifest(plan, { namespace });
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  const command = generatedBy(
    'linkerd',
    options,
    options.namespace !== undefined ? [`--namespace ${namespace}`] : [],
  );
  return manifestOutput(
    manifest,
    { command, doc: DOC, cannot: 'What Linkerd cannot express:' },
    options,
    'The Linkerd routes of every called service',
    () =>
      network.services.map((service) => {
        const name = names.get(service.name) as string;
        const routes = manifest.objects.filter((object) => object.metadata.labels.app === name);
        return {
          name: `${fileStem(service.name)}.linkerd.yaml`,
          holds: `The Linkerd routes to ${service.name}`,
          objects: routes,
          service: service.name,
          what: `${routes.length} HTTPRoutes to ${service.name}`,
        };
      }),
  );
}

/** Registers `difftry mesh linkerd FILE` under the `mesh` command. */
export function registerMeshLinkerdCommand(mesh: Command): void {
  mesh
    .command('linkerd')
    .description(
      'Linkerd HTTPRoutes: one per class and called service, with its retries as annotations',
    )
    .argument('[file]', 'network file (YAML or JSON)')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option('--namespace <ns>', 'the namespace of every route (default default)')
    .option('--out <dir>', 'write SERVICE.linkerd.yaml files into this directory')
    .option('--json', 'one JSON document { limits, objects } instead of YAML')
    .addHelpText(
      'after',
      '\nEach called service gets, per class, an HTTPRoute attached to its Service (port 80)\n' +
        "matching x-priority (exact, case-sensitive), annotated with the class's retries at the hop\n" +
        '(retry.linkerd.io/http, /limit, /timeout), and one for no or an unknown class with the\n' +
        "default class's. Linkerd 2.16 or later; no ServiceProfiles for these Services. Linkerd has\n" +
        `no ingress: classify at the edge with difftry mesh gateway-api. ${DOC} has the limits.\n\n` +
        'Examples:\n' +
        '  difftry mesh linkerd examples/hotel-calls.yaml --namespace shop --out linkerd/\n' +
        '  kubectl apply -f linkerd/',
    )
    .action(async (file: string | undefined, opts: Omit<MeshLinkerdOptions, 'file'>) => {
      const text = await meshLinkerdCommand({ ...opts, ...(file !== undefined && { file }) });
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
}
