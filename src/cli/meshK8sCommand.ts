import { type Command, Option } from 'commander';
import { type KubernetesOptions, kubernetesManifest } from '../deploy/kubernetes.js';
import { isDnsSubdomain, kubernetesNames } from '../deploy/kubernetesNames.js';
import { meshPlan } from '../deploy/meshPlan.js';
import { integerIn, loadNetwork, type NetworkSource } from './input.js';
import { checkNamespace, fileStem, generatedBy, manifestOutput } from './meshFiles.js';
import { packageVersion } from './packageVersion.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry mesh k8s`. */
export interface MeshK8sOptions extends NetworkSource {
  /** The application's image, `{service}` standing for the service's Kubernetes name (required). */
  readonly appImage?: string;
  /** The sidecar's image; default `difftry/proxy:VERSION`, this package's version. */
  readonly proxyImage?: string;
  /** The Secret holding the mesh token (key `token`); default `difftry-mesh-token`. */
  readonly tokenSecret?: string;
  /** The Secret holding the values of `valueEnv` edge rules; default `difftry-edge-keys`. */
  readonly edgeSecret?: string;
  /** Pods per Deployment; default 1. */
  readonly replicas?: number;
  /** The namespace of every object; default `default`. */
  readonly namespace?: string;
  /** Write SERVICE.k8s.yaml per service into this directory. */
  readonly out?: string;
  /** One JSON document `{ limits, objects }` instead of YAML. */
  readonly json?: boolean;
}

/** The image `--proxy-image` defaults to: the Dockerfile's, tagged with this package's version. */
export function defaultProxyImage(): string {
  return `difftry/proxy:${packageVersion()}`;
}

const APP_IMAGE_EXAMPLE = '--app-image registry.example/hotel/{service}:1.0';

/**
 * `difftry mesh k8s FILE --app-image TEMPLATE`: every service as a Deployment whose pod runs the
 * application beside a `difftry proxy` sidecar, with the sidecar's config in a ConfigMap and a
 * Service in front of it (see `kubernetesManifest`). Without `--out`, prints one YAML stream (or,
 * with `--json`, one document `{ limits, objects }`); with `--out DIR`, writes
 * `SERVICE.k8s.yaml` per service (its ConfigMap, Deployment and Service). Every YAML output starts
 * with a comment naming the command, then what the manifests cannot do.
 * @returns what to print on stdout.
 */
export async function meshK8sCommand(options: MeshK8sOptions): Promise<string> {
  const appImage = options.appImage;
  if (appImage === undefined || appImage.trim() === '') {
    throw new UsageError(
      `--app-image: required, the application's image with {service} for each service's name, e.g. ${APP_IMAGE_EXAMPLE}`,
    );
  }
  for (const [flag, image] of [
    ['--app-image', appImage],
    ['--proxy-image', options.proxyImage],
  ] as const) {
    if (image !== undefined && /\s/.test(image)) {
      throw new UsageError(`${flag}: expected an image reference without spaces, got "${image}"`);
    }
  }
  const { tokenSecret, edgeSecret } = options;
  for (const [flag, secret] of [
    ['--token-secret', tokenSecret],
    ['--edge-secret', edgeSecret],
  ] as const) {
    if (secret !== undefined && !isDnsSubdomain(secret)) {
      throw new UsageError(
        `${flag}: expected a Secret name (lower-case letters, digits, '-' and '.'), got "${secret}"`,
      );
    }
  }
  const namespace = checkNamespace(options.namespace);
  const network = await loadNetwork(options);
  const generatorOptions: KubernetesOptions = {
    appImage,
    proxyImage: options.proxyImage ?? defaultProxyImage(),
    namespace,
    ...(tokenSecret !== undefined && { tokenSecret }),
    ...(edgeSecret !== undefined && { edgeSecret }),
    ...(options.replicas !== undefined && { replicas: options.replicas }),
  };
  let names: ReadonlyMap<string, string>;
  let manifest: ReturnType<typeof kubernetesManifest>;
  try {
    names = kubernetesNames(meshPlan(network));
    manifest = kubernetesManifest(network, generatorOptions);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  const command = generatedBy('k8s', options, [
    `--app-image ${appImage}`,
    ...(options.proxyImage !== undefined ? [`--proxy-image ${options.proxyImage}`] : []),
    ...(tokenSecret !== undefined ? [`--token-secret ${tokenSecret}`] : []),
    ...(edgeSecret !== undefined ? [`--edge-secret ${edgeSecret}`] : []),
    ...(options.replicas !== undefined ? [`--replicas ${options.replicas}`] : []),
    ...(options.namespace !== undefined ? [`--namespace ${namespace}`] : []),
  ]);
  return manifestOutput(
    manifest,
    { command, doc: 'docs/kubernetes.md', cannot: 'What these manifests cannot do:' },
    options,
    'Every service with its difftry proxy sidecar (ConfigMap, Deployment, Service)',
    () =>
      network.services.map((service) => {
        const name = names.get(service.name) as string;
        return {
          name: `${fileStem(service.name)}.k8s.yaml`,
          holds: `The pod of ${service.name} with its difftry proxy sidecar (ConfigMap, Deployment, Service)`,
          objects: manifest.objects.filter((object) => object.metadata.labels.app === name),
          service: service.name,
          what: `ConfigMap, Deployment and Service of ${service.name}`,
        };
      }),
  );
}

/** Registers `difftry mesh k8s FILE` under the `mesh` command. */
export function registerMeshK8sCommand(mesh: Command): void {
  mesh
    .command('k8s')
    .description(
      'every service as a Kubernetes Deployment with a difftry proxy sidecar, its config and a Service',
    )
    .argument('[file]', 'network file (YAML or JSON)')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option(
      '--app-image <template>',
      "the application's image, {service} standing for the service's name (required)",
    )
    .option('--proxy-image <image>', `the sidecar's image (default ${defaultProxyImage()})`)
    .option(
      '--token-secret <name>',
      'the Secret holding the mesh token under the key token (default difftry-mesh-token)',
    )
    .option(
      '--edge-secret <name>',
      'the Secret holding the values of edge rules with valueEnv, one key per variable (default difftry-edge-keys)',
    )
    .addOption(
      new Option('--replicas <n>', 'pods per Deployment (default 1)').argParser(
        integerIn('--replicas', 1, 10_000),
      ),
    )
    .option('--namespace <ns>', 'the namespace of every object (default default)')
    .option('--out <dir>', 'write SERVICE.k8s.yaml files into this directory')
    .option('--json', 'one JSON document { limits, objects } instead of YAML')
    .addHelpText(
      'after',
      '\nEach pod runs the application (on 127.0.0.1:8080, calling its upstreams through\n' +
        'http://127.0.0.1:15001) beside difftry proxy, whose config (a ConfigMap) is the one\n' +
        '`difftry mesh sidecars` gives, addressed for the pod; each Service (port 80) targets the\n' +
        "sidecar's inbound listener. The mesh token comes from a Secret you create.\n" +
        'docs/kubernetes.md has the mapping and its limits.\n\n' +
        'Examples:\n' +
        `  difftry mesh k8s examples/hotel-calls.yaml ${APP_IMAGE_EXAMPLE} --out k8s/\n` +
        '  kubectl create secret generic difftry-mesh-token --from-literal=token=$(openssl rand -hex 32)\n' +
        '  kubectl apply -f k8s/',
    )
    .action(async (file: string | undefined, opts: Omit<MeshK8sOptions, 'file'>) => {
      const text = await meshK8sCommand({ ...opts, ...(file !== undefined && { file }) });
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
}
