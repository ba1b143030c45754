import type { Command } from 'commander';
import { istioManifest } from '../deploy/istio.js';
import { kubernetesNames } from '../deploy/kubernetesNames.js';
import type { KubernetesObject, MeshManifest } from '../deploy/kubernetesObject.js';
import { type MeshPlan, meshPlan } from '../deploy/meshPlan.js';
import { loadNetwork, type NetworkSource } from './input.js';
import { checkNamespace, fileStem, generatedBy, manifestOutput } from './meshFiles.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry mesh istio`. */
export interface MeshIstioOptions extends NetworkSource {
  /** Write SERVICE.istio.yaml per service and edge.istio-gateway.yaml into this directory. */
  readonly out?: string;
  /** The namespace of every object; `default` if none. */
  readonly namespace?: string;
  /** An existing Istio Gateway for the edge (`NAME` or `NAMESPACE/NAME`): none is generated. */
  readonly gateway?: string;
  /** The edge's hosts, comma-separated; `*` if none. */
  readonly hosts?: string;
  /** One JSON document instead of YAML. */
  readonly json?: boolean;
}

/**
 * The file of the edge's objects (the Gateway and the ingress VirtualServices). Every service's
 * file ends in `.istio.yaml`, this one does not: no service name can take it.
 */
export const GATEWAY_FILE = 'edge.istio-gateway.yaml';

/**
 * `difftry mesh istio FILE`: the Istio configuration of a network (see `istioManifest`). Without
 * `--out`, prints every object as one YAML stream (or, with `--json`, one document
 * `{ "limits": [...], "objects": [...] }`); with `--out DIR`, writes `SERVICE.istio.yaml` per
 * service (its VirtualService, DestinationRule and Sidecar) and `edge.istio-gateway.yaml` (the edge's
 * Gateway and ingress VirtualServices). Every YAML file starts with a comment naming the command
 * that made it, then what Istio cannot express.
 * @returns what to print on stdout.
 */
export async function meshIstioCommand(options: MeshIstioOptions): Promise<string> {
  const network = await loadNetwork(options);
  const namespace = checkNamespace(options.namespace);
  const hosts = options.hosts === undefined ? undefined : parseHosts(options.hosts);
  const command = generatedBy('istio', options, [
    ...(options.namespace !== undefined ? [`--namespace ${namespace}`] : []),
    ...(options.gateway !== undefined ? [`--gateway ${options.gateway}`] : []),
    ...(hosts !== undefined ? [`--hosts ${hosts.join(',')}`] : []),
  ]);
  const plan = meshPlan(network);
  let manifest: MeshManifest;
  let names: ReadonlyMap<string, string>;
  try {
    names = kubernetesNames(plan);
    manifest = istioManifest(plan, {
      namespace,
      ...(options.gateway !== undefined && { gateway: options.gateway }),
      ...(hosts !== undefined && { hosts }),
    });
  } catch (error) {
    if (error instanceof RangeError) {
      throw new UsageError(error.message.replace(/^(gateway|hosts):/, '--$1:'), { cause: error });
    }
    throw error;
  }
  return manifestOutput(
    manifest,
    { command, doc: 'docs/mesh-istio.md', cannot: 'What Istio cannot express here:' },
    options,
    'Istio config of every service (kubectl apply -f)',
    () => [
      ...byService(plan, names, manifest.objects).map(([service, objects]) => ({
        name: `${fileStem(service)}.istio.yaml`,
        holds: `The Istio config of ${service}`,
        objects,
        service,
        what: `Istio config of ${service}`,
      })),
      {
        name: GATEWAY_FILE,
        holds: 'The Istio config of the edge (Gateway, ingress routes)',
        objects: manifest.objects.filter(isEdgeObject),
        service: '(the edge)',
        what: 'Istio Gateway and ingress routes',
      },
    ],
  );
}

/** The Gateway, and the VirtualServices bound to a gateway rather than to the mesh. */
function isEdgeObject(object: KubernetesObject): boolean {
  if (object.kind === 'Gateway') return true;
  const spec = object.spec as { gateways?: readonly string[] } | undefined;
  return object.kind === 'VirtualService' && spec?.gateways !== undefined;
}

/** Each service's own objects (by their `app` label), in file order. */
function byService(
  plan: MeshPlan,
  names: ReadonlyMap<string, string>,
  objects: readonly KubernetesObject[],
): [string, KubernetesObject[]][] {
  return plan.services.map((service) => [
    service.name,
    objects.filter((o) => !isEdgeObject(o) && o.metadata.labels.app === names.get(service.name)),
  ]);
}

function parseHosts(text: string): string[] {
  const hosts = text
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
  if (hosts.length === 0)
    throw new UsageError(`--hosts: expected a comma-separated list, got "${text}"`);
  return hosts;
}

/** Registers `difftry mesh istio FILE` under the `mesh` command. */
export function registerMeshIstioCommand(mesh: Command): void {
  mesh
    .command('istio')
    .description(
      'Istio VirtualServices with per-class retries, admission (Sidecar, DestinationRule), edge Gateway',
    )
    .argument('[file]', 'network file (YAML or JSON)')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option(
      '--out <dir>',
      'write SERVICE.istio.yaml files and edge.istio-gateway.yaml into this directory',
    )
    .option('--namespace <ns>', 'the namespace of every object (default: default)')
    .option(
      '--gateway <ns/name>',
      'bind the edge to this existing Istio Gateway instead of a new one',
    )
    .option('--hosts <list>', "the edge's hosts, comma-separated (default: *)")
    .option('--json', 'one JSON document instead of YAML')
    .addHelpText(
      'after',
      "\nEach caller's sidecar sends a request to the route of its class (x-priority, any case), whose\n" +
        "retries have that class's limit at the hop; a request with no or an unknown class gets the\n" +
        "default class's. Admission is each service's Sidecar inboundConnectionPool; at the edge the\n" +
        "client's class header is replaced. docs/mesh-istio.md has the mapping and its limits.\n\n" +
        'Examples:\n' +
        '  difftry mesh istio examples/hotel-calls.yaml --out k8s/ && kubectl apply -f k8s/\n' +
        '  difftry mesh istio --example hotel --namespace shop --gateway istio-system/public',
    )
    .action(async (file: string | undefined, opts: Omit<MeshIstioOptions, 'file'>) => {
      const text = await meshIstioCommand({ ...opts, ...(file !== undefined && { file }) });
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
}
