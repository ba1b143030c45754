import type { Command } from 'commander';
import {
  DEFAULT_GATEWAY,
  DEFAULT_GATEWAY_CLASS,
  type GatewayApiOptions,
  gatewayApiManifest,
} from '../deploy/gatewayApi.js';
import { checkObjectName } from '../deploy/httpRoutes.js';
import { kubernetesNames } from '../deploy/kubernetesNames.js';
import type { MeshManifest } from '../deploy/kubernetesObject.js';
import { meshPlan } from '../deploy/meshPlan.js';
import { loadNetwork, type NetworkSource } from './input.js';
import { checkNamespace, fileStem, generatedBy, manifestOutput } from './meshFiles.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry mesh gateway-api`. */
export interface MeshGatewayApiOptions extends NetworkSource {
  /** The namespace of every object; default `default`. */
  readonly namespace?: string;
  /** An existing Gateway for the edge routes, `NAME` or `NAMESPACE/NAME`; then none is generated. */
  readonly gateway?: string;
  /** The class of the generated Gateway; default `difftry` (no implementation's). */
  readonly gatewayClass?: string;
  /** Write SERVICE.gateway-api.yaml per service (and edge.gateway.yaml) into this directory. */
  readonly out?: string;
  /** One JSON document `{ limits, objects }` instead of YAML. */
  readonly json?: boolean;
}

const DOC = 'docs/mesh-gateway-api.md';
/**
 * The file of the generated Gateway, beside the services' files. Every service's file ends in
 * `.gateway-api.yaml`, this one does not: no service name can take it.
 */
export const GATEWAY_FILE = 'edge.gateway.yaml';

/** `--gateway NAME` or `--gateway NAMESPACE/NAME`, checked. */
function gatewayOption(
  value: string,
  namespace: string,
): Pick<GatewayApiOptions, 'gateway' | 'gatewayNamespace'> {
  const parts = value.split('/');
  if (parts.length > 2) {
    throw new UsageError(`--gateway: expected NAME or NAMESPACE/NAME, got "${value}"`);
  }
  const [first, second] = parts as [string, string?];
  if (second === undefined)
    return { gateway: objectName(first, '--gateway'), gatewayNamespace: namespace };
  try {
    checkNamespace(first);
  } catch {
    throw new UsageError(`--gateway: "${first}" in "${value}" is not a Kubernetes namespace`);
  }
  return { gateway: objectName(second, '--gateway'), gatewayNamespace: first };
}

/** A Kubernetes object name given to `flag`, checked. */
function objectName(value: string, flag: string): string {
  try {
    return checkObjectName(value, flag);
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
}

/**
 * `difftry mesh gateway-api FILE`: the Gateway API (v1, GAMMA) routes of every service (see
 * `gatewayApiManifest`): an HTTPRoute per called service attached to its Service, with a rule
 * per class; an HTTPRoute per edge service attached to a Gateway, classifying external requests;
 * and that Gateway unless `--gateway` names an existing one. Without `--out`, prints one YAML
 * stream (or, with `--json`, one document `{ limits, objects }`); with `--out DIR`, writes
 * `SERVICE.gateway-api.yaml` per service with routes and `edge.gateway.yaml`. Every YAML
 * output starts with a comment naming the command, then what Gateway API cannot express.
 * @returns what to print on stdout.
 */
export async function meshGatewayApiCommand(options: MeshGatewayApiOptions): Promise<string> {
  const namespace = checkNamespace(options.namespace);
  if (options.gateway !== undefined && options.gatewayClass !== undefined) {
    throw new UsageError(
      '--gateway-class: the class of the generated Gateway; with --gateway none is generated',
    );
  }
  const network = await loadNetwork(options);
  const generatorOptions: GatewayApiOptions = {
    namespace,
    ...(options.gateway !== undefined && gatewayOption(options.gateway, namespace)),
    ...(options.gatewayClass !== undefined && {
      gatewayClassName: objectName(options.gatewayClass, '--gateway-class'),
    }),
  };
  let names: ReadonlyMap<string, string>;
  let manifest: MeshManifest;
  try {
    const plan = meshPlan(network);
    names = kubernetesNames(plan);
    manifest = gatewayApiManifest(plan, generatorOptions);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  const command = generatedBy('gateway-api', options, [
    ...(options.namespace !== undefined ? [`--namespace ${namespace}`] : []),
    ...(options.gateway !== undefined ? [`--gateway ${options.gateway}`] : []),
    ...(options.gatewayClass !== undefined ? [`--gateway-class ${options.gatewayClass}`] : []),
  ]);
  const className = options.gatewayClass ?? DEFAULT_GATEWAY_CLASS;
  return manifestOutput(
    manifest,
    { command, doc: DOC, cannot: 'What Gateway API cannot express:' },
    options,
    'The Gateway API routes of every service',
    () => [
      {
        name: GATEWAY_FILE,
        holds: `The Gateway ${DEFAULT_GATEWAY} (class ${className}) of the edge routes`,
        objects: manifest.objects.filter((object) => object.kind === 'Gateway'),
        service: `the Gateway ${DEFAULT_GATEWAY}`,
        what: `Gateway ${DEFAULT_GATEWAY}`,
      },
      ...network.services.map((service) => {
        const name = names.get(service.name) as string;
        const routes = manifest.objects.filter(
          (object) => object.kind === 'HTTPRoute' && object.metadata.labels.app === name,
        );
        return {
          name: `${fileStem(service.name)}.gateway-api.yaml`,
          holds: `The HTTPRoutes to ${service.name}`,
          objects: routes,
          service: service.name,
          what: `HTTPRoutes ${routes.map((route) => route.metadata.name).join(', ')}`,
        };
      }),
    ],
  );
}

/** Registers `difftry mesh gateway-api FILE` under the `mesh` command. */
export function registerMeshGatewayApiCommand(mesh: Command): void {
  mesh
    .command('gateway-api')
    .description(
      'Gateway API HTTPRoutes (GAMMA): per-class rules with their retries, and the edge on a Gateway',
    )
    .argument('[file]', 'network file (YAML or JSON)')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option('--namespace <ns>', 'the namespace of every object (default default)')
    .option(
      '--gateway <name>',
      'attach the edge routes to this existing Gateway (NAME or NAMESPACE/NAME) and generate none',
    )
    .option(
      '--gateway-class <name>',
      `the gatewayClassName of the generated Gateway (default ${DEFAULT_GATEWAY_CLASS}: set yours, e.g. istio)`,
    )
    .option(
      '--out <dir>',
      `write SERVICE.gateway-api.yaml files (and ${GATEWAY_FILE}) into this directory`,
    )
    .option('--json', 'one JSON document { limits, objects } instead of YAML')
    .addHelpText(
      'after',
      '\nEach called service gets an HTTPRoute attached to its Service (port 80) with a rule per\n' +
        "class (x-priority, exact and case-sensitive) whose retry has that class's limit at the hop,\n" +
        "and a last rule giving no or an unknown class the default class's. Each edge service gets an\n" +
        "HTTPRoute on the Gateway that replaces the client's class header as the edge rules decide.\n" +
        `HTTPRoute retry is experimental (GEP-1731). ${DOC} has the mapping and its limits.\n\n` +
        'Examples:\n' +
        '  difftry mesh gateway-api examples/hotel-calls.yaml --gateway-class istio --out k8s/\n' +
        '  kubectl apply -f k8s/',
    )
    .action(async (file: string | undefined, opts: Omit<MeshGatewayApiOptions, 'file'>) => {
      const text = await meshGatewayApiCommand({ ...opts, ...(file !== undefined && { file }) });
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
}
