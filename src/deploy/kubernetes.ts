import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { checkSidecarConfig } from '../config/parseSidecarConfig.js';
import type { NetworkSpec } from '../config/schema.js';
import type { EdgeRuleConfig, SidecarConfigInput } from '../config/sidecarSchema.js';
import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import { isDnsLabel, isDnsSubdomain, kubernetesNames } from './kubernetesNames.js';
import { type KubernetesObject, type MeshManifest, objectMeta } from './kubernetesObject.js';
import { meshPlan } from './meshPlan.js';
import { sidecarsFromNetwork } from './sidecarsFromNetwork.js';

/** The ports of every pod: the sidecar's three listeners, the application, the Service. */
export interface PodPorts {
  /**
   * The sidecar's inbound listener, on every address of the pod (what the Service targets).
   * @default 15006
   */
  readonly inbound?: number;
  /**
   * The sidecar's outbound listener on 127.0.0.1, which the application calls.
   * @default 15001
   */
  readonly outbound?: number;
  /**
   * The sidecar's `/metrics` and `/healthz` listener, on every address of the pod (the kubelet
   * and Prometheus reach the pod's IP, never its loopback).
   * @default 15020
   */
  readonly admin?: number;
  /**
   * The application's port on 127.0.0.1.
   * @default 8080
   */
  readonly app?: number;
  /**
   * The port of each Service (named `http`), in front of the inbound listener.
   * @default 80
   */
  readonly service?: number;
}

/** Options of {@link kubernetesManifest}. */
export interface KubernetesOptions {
  /**
   * The application's image, `{service}` replaced by the service's Kubernetes name:
   * `registry.example/hotel/{service}:1.0`.
   */
  readonly appImage: string;
  /** The sidecar's image (`difftry` as its entrypoint; see the repository's Dockerfile). */
  readonly proxyImage: string;
  /**
   * The namespace of every object (and of every upstream's DNS name).
   * @default 'default'
   */
  readonly namespace?: string;
  /**
   * The Secret holding the mesh token under the key `token` (referenced, never generated).
   * @default 'difftry-mesh-token'
   */
  readonly tokenSecret?: string;
  /**
   * The Secret holding the values of edge rules that name an environment variable
   * (`valueEnv`), one key per variable (referenced, never generated).
   * @default 'difftry-edge-keys'
   */
  readonly edgeSecret?: string;
  /**
   * The environment variable the sidecar reads the mesh token from.
   * @default 'DIFFTRY_MESH_TOKEN'
   */
  readonly tokenEnv?: string;
  /**
   * Pods per Deployment (each runs its own admission).
   * @default 1
   */
  readonly replicas?: number;
  /**
   * The cluster's DNS domain, in the upstreams' names.
   * @default 'cluster.local'
   */
  readonly clusterDomain?: string;
  readonly ports?: PodPorts;
  /**
   * The edge rules of every service with external arrivals (as {@link sidecarsFromNetwork}
   * takes them), over the network file's `edge.rules`.
   * @default the network file's
   */
  readonly edgeRules?: readonly EdgeRuleConfig[];
}

/** The container that runs `difftry proxy` in every pod. */
export const PROXY_CONTAINER = 'difftry-proxy';
/** The application's container in every pod. */
export const APP_CONTAINER = 'app';
/** Where the sidecar config is mounted, and its file name in the ConfigMap. */
export const SIDECAR_CONFIG_DIR = '/etc/difftry';
export const SIDECAR_CONFIG_FILE = 'sidecar.yaml';
/** The pod-template annotation that changes with the sidecar config, so that a new config rolls the pods. */
export const CONFIG_HASH_ANNOTATION = 'difftry/sidecar-config-sha256';
/** The name of the ConfigMap holding a service's sidecar config. */
export const configMapName = (name: string): string => `${name}-difftry`;

const CONFIG_VOLUME = 'difftry-config';
/**
 * What the sidecar asks of a node. One Node process: about 95 MiB resident when idle (measured
 * on the built CLI with hotel's frontend config), up to 64 request bodies of 1 MiB held while
 * they upload; its JavaScript runs on one thread, so one core is the most it can use.
 */
const PROXY_RESOURCES = {
  requests: { cpu: '50m', memory: '128Mi' },
  limits: { cpu: '1', memory: '256Mi' },
};
/** The uid and gid of the `node` user of the official Node images the Dockerfile builds on. */
const PROXY_USER = 1000;
/** RFC 1123 subdomain: what a Secret's name must be. */

interface ResolvedOptions {
  readonly namespace: string;
  readonly appImage: string;
  readonly proxyImage: string;
  readonly tokenSecret: string;
  readonly edgeSecret: string;
  readonly tokenEnv: string;
  readonly replicas: number;
  readonly clusterDomain: string;
  readonly ports: Required<PodPorts>;
  readonly edgeRules: readonly EdgeRuleConfig[] | undefined;
}

function resolveOptions(options: KubernetesOptions): ResolvedOptions {
  const ports = {
    inbound: options.ports?.inbound ?? 15_006,
    outbound: options.ports?.outbound ?? 15_001,
    admin: options.ports?.admin ?? 15_020,
    app: options.ports?.app ?? 8080,
    service: options.ports?.service ?? 80,
  };
  for (const [name, port] of Object.entries(ports)) {
    if (!(Number.isInteger(port) && port >= 1 && port <= 65_535)) {
      throw new InvalidArgumentError(
        `ports.${name} should be an integer from 1 to 65535, got ${port}`,
      );
    }
  }
  // The application and the sidecar share the pod's network: no two of them on one port.
  const inPod = [ports.inbound, ports.outbound, ports.admin, ports.app];
  if (new Set(inPod).size !== inPod.length) {
    throw new InvalidArgumentError(
      `ports: the inbound, outbound, admin and app ports share one pod and must differ, got ${inPod.join(', ')}`,
    );
  }
  for (const [name, image] of [
    ['appImage', options.appImage],
    ['proxyImage', options.proxyImage],
  ] as const) {
    if (image === '' || /\s/.test(image)) {
      throw new InvalidArgumentError(
        `${name} should be an image reference, got ${JSON.stringify(image)}`,
      );
    }
  }
  const tokenSecret = options.tokenSecret ?? 'difftry-mesh-token';
  const edgeSecret = options.edgeSecret ?? 'difftry-edge-keys';
  for (const [name, secret] of [
    ['tokenSecret', tokenSecret],
    ['edgeSecret', edgeSecret],
  ] as const) {
    if (!isDnsSubdomain(secret)) {
      throw new InvalidArgumentError(
        `${name} should be a Secret name (lower-case letters, digits, '-' and '.'), got ${JSON.stringify(secret)}`,
      );
    }
  }
  const namespace = options.namespace ?? 'default';
  if (!isDnsLabel(namespace)) {
    throw new InvalidArgumentError(
      `namespace should be an RFC 1123 label (lower-case letters, digits and '-', at most 63), got ${JSON.stringify(namespace)}`,
    );
  }
  const clusterDomain = options.clusterDomain ?? 'cluster.local';
  if (!isDnsSubdomain(clusterDomain)) {
    throw new InvalidArgumentError(
      `clusterDomain should be a DNS name, got ${JSON.stringify(clusterDomain)}`,
    );
  }
  const replicas = options.replicas ?? 1;
  if (!(Number.isInteger(replicas) && replicas >= 1)) {
    throw new InvalidArgumentError(`replicas should be an integer ≥ 1, got ${replicas}`);
  }
  return {
    namespace,
    appImage: options.appImage,
    proxyImage: options.proxyImage,
    tokenSecret,
    edgeSecret,
    tokenEnv: options.tokenEnv ?? 'DIFFTRY_MESH_TOKEN',
    replicas,
    clusterDomain,
    ports,
    edgeRules: options.edgeRules,
  };
}

/**
 * Every service's sidecar config addressed for its own pod (what `difftry mesh sidecars` writes,
 * as {@link sidecarsFromNetwork} makes it, with the pod's ports): inbound on `0.0.0.0:15006` in
 * front of the application at `http://127.0.0.1:8080`, outbound on `127.0.0.1:15001`,
 * `/metrics` and `/healthz` on `0.0.0.0:15020`, and each upstream at its Service,
 * `http://NAME.NAMESPACE.svc.cluster.local:80`, also routed by `Host` under its Kubernetes
 * names. Each config is checked by the sidecar's own schema.
 * @throws RangeError for bad options, or two services with one Kubernetes name.
 */
export function podSidecarConfigs(
  network: NetworkSpec,
  options: KubernetesOptions,
): SidecarConfigInput[] {
  const resolved = resolveOptions(options);
  return podConfigs(network, resolved, kubernetesNames(meshPlan(network)));
}

function podConfigs(
  network: NetworkSpec,
  options: ResolvedOptions,
  names: ReadonlyMap<string, string>,
): SidecarConfigInput[] {
  const { ports, namespace } = options;
  const serviceNames = new Set(network.services.map((s) => s.name.toLowerCase()));
  const configs = sidecarsFromNetwork(network, {
    tokenEnv: options.tokenEnv,
    ...(options.edgeRules !== undefined && { edgeRules: options.edgeRules }),
    perPod: {
      inboundListen: `0.0.0.0:${ports.inbound}`,
      outboundListen: `127.0.0.1:${ports.outbound}`,
      adminListen: `0.0.0.0:${ports.admin}`,
      app: `http://127.0.0.1:${ports.app}`,
      upstream: (service) => {
        const name = names.get(service) as string;
        const fqdn = `${name}.${namespace}.svc.${options.clusterDomain}`;
        // The names an application may already use for it; none that another service is called.
        const hosts = [name, `${name}.${namespace}`, `${name}.${namespace}.svc`, fqdn].filter(
          (host) => !serviceNames.has(host),
        );
        return { url: `http://${fqdn}:${ports.service}`, hosts };
      },
    },
  });
  for (const config of configs) checkSidecarConfig(config, `the pod sidecar of ${config.service}`);
  return configs;
}

/**
 * The Kubernetes objects that run every service of a network with a `difftry proxy` sidecar,
 * per service (by its Kubernetes name, see {@link kubernetesNames}):
 * - a ConfigMap `NAME-difftry` holding `sidecar.yaml`, the service's pod sidecar config (see
 *   {@link podSidecarConfigs}): the plan's classes, per-upstream retries, per-try timeouts,
 *   backoff, admission c and m, edge and trust, exactly as `difftry mesh sidecars` gives them;
 * - a Deployment `NAME` (`app: NAME`) with two containers: `app` (the application's image) and
 *   `difftry-proxy` (`proxy --config /etc/difftry/sidecar.yaml`, the ConfigMap mounted read-only,
 *   the mesh token from a Secret, ready when `/healthz` answers, non-root, read-only root);
 *   the pod template carries the Prometheus scrape annotations and the config's SHA-256;
 * - a Service `NAME`, port 80 (`http`) to the sidecar's inbound listener.
 * @throws RangeError for bad options, or two services with one Kubernetes name.
 * @example
 * ```ts
 * const { objects, limits } = kubernetesManifest(network, {
 *   appImage: 'registry.example/hotel/{service}:1.0',
 *   proxyImage: 'difftry/proxy:0.1.0',
 *   namespace: 'hotel',
 * });
 * objects.map((o) => `${o.kind}/${o.metadata.name}`); // ['ConfigMap/frontend-difftry', 'Deployment/frontend', 'Service/frontend', …]
 * ```
 */
export function kubernetesManifest(network: NetworkSpec, options: KubernetesOptions): MeshManifest {
  const resolved = resolveOptions(options);
  const names = kubernetesNames(meshPlan(network));
  const configs = podConfigs(network, resolved, names);
  const objects = configs.flatMap((config) => {
    const name = names.get(config.service) as string;
    const text = stringify(config, { aliasDuplicateObjects: false });
    return [
      configMap(name, text, resolved),
      deployment(name, text, edgeKeyEnvs(config), resolved),
      service(name, resolved),
    ];
  });
  return { objects, limits: kubernetesLimits(resolved, configs) };
}

/** The environment variables a sidecar's edge rules read their values from, in rule order. */
function edgeKeyEnvs(config: SidecarConfigInput): string[] {
  const rules = config.inbound?.edge?.rules ?? [];
  return [
    ...new Set(rules.flatMap((rule) => (rule.valueEnv === undefined ? [] : [rule.valueEnv]))),
  ];
}

/** What these manifests do not do, in the words of the file headers and docs/kubernetes.md. */
function kubernetesLimits(
  options: ResolvedOptions,
  configs: readonly SidecarConfigInput[],
): string[] {
  const { ports } = options;
  const edges = configs.filter((config) => config.inbound?.edge !== undefined);
  const ruled = edges.some((config) => (config.inbound?.edge?.rules?.length ?? 0) > 0);
  const keyEnvs = [...new Set(configs.flatMap(edgeKeyEnvs))];
  return [
    `The application must call its upstreams through the sidecar's outbound listener, http://127.0.0.1:${ports.outbound} (path /SERVICE/... or Host: SERVICE); nothing captures traffic (no iptables), so a call straight to another Service skips DiffTry's retries and arrives untrusted, as the default class.`,
    `The application must listen on 127.0.0.1:${ports.app} only; no NetworkPolicy is generated, so a port it opens on the pod's IP is reachable around the sidecar's admission.`,
    'Admission is per pod: each replica admits its own c and m, so a Deployment of N replicas runs N·c requests at once and holds N·m; the model is one replica.',
    ruled || edges.length === 0
      ? 'No Ingress is generated: point yours at the edge Service, whose sidecar classifies external requests by the edge rules.'
      : "The network file has no edge rules: every external request gets the edge's default class (write an edge section). No Ingress is generated: point yours at the edge Service.",
    `The mesh token Secret (${options.tokenSecret}, key token) is referenced, not generated; pods wait in CreateContainerConfigError until it exists.`,
    ...(keyEnvs.length > 0
      ? [
          `The edge rules' values come from the Secret ${options.edgeSecret} (keys ${keyEnvs.join(', ')}, each a comma-separated list), referenced, not generated.`,
        ]
      : []),
    'The two containers start together: calls the application makes before the sidecar listens are refused (Kubernetes native sidecars would order them; not generated), and readiness checks the sidecar only, not the application.',
    'HTTP/1.1 only, in clear: the mesh token travels unencrypted between pods (run mTLS underneath where that matters).',
  ];
}

function configMap(name: string, text: string, options: ResolvedOptions): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: objectMeta(configMapName(name), options.namespace, { app: name }),
    data: { [SIDECAR_CONFIG_FILE]: text },
  };
}

function deployment(
  name: string,
  configText: string,
  keyEnvs: readonly string[],
  options: ResolvedOptions,
): KubernetesObject {
  const { ports } = options;
  const meta = objectMeta(name, options.namespace, { app: name });
  const app = {
    name: APP_CONTAINER,
    image: options.appImage.replaceAll('{service}', name),
    env: [
      { name: 'DIFFTRY_OUTBOUND', value: `http://127.0.0.1:${ports.outbound}` },
      { name: 'DIFFTRY_APP_LISTEN', value: `127.0.0.1:${ports.app}` },
    ],
  };
  const proxy = {
    name: PROXY_CONTAINER,
    image: options.proxyImage,
    args: ['proxy', '--config', `${SIDECAR_CONFIG_DIR}/${SIDECAR_CONFIG_FILE}`],
    ports: [
      { name: 'difftry-in', containerPort: ports.inbound, protocol: 'TCP' },
      { name: 'difftry-admin', containerPort: ports.admin, protocol: 'TCP' },
    ],
    env: [
      {
        name: options.tokenEnv,
        valueFrom: { secretKeyRef: { name: options.tokenSecret, key: 'token' } },
      },
      // Edge rules on secret values (valueEnv): from a Secret too, never a literal.
      ...keyEnvs.map((env) => ({
        name: env,
        valueFrom: { secretKeyRef: { name: options.edgeSecret, key: env } },
      })),
    ],
    volumeMounts: [{ name: CONFIG_VOLUME, mountPath: SIDECAR_CONFIG_DIR, readOnly: true }],
    readinessProbe: {
      httpGet: { path: '/healthz', port: ports.admin },
      periodSeconds: 5,
      failureThreshold: 2,
    },
    resources: structuredClone(PROXY_RESOURCES),
    securityContext: {
      runAsNonRoot: true,
      runAsUser: PROXY_USER,
      runAsGroup: PROXY_USER,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    },
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta,
    spec: {
      replicas: options.replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: {
          labels: { ...meta.labels },
          annotations: {
            'prometheus.io/scrape': 'true',
            'prometheus.io/port': String(ports.admin),
            'prometheus.io/path': '/metrics',
            [CONFIG_HASH_ANNOTATION]: createHash('sha256').update(configText).digest('hex'),
          },
        },
        spec: {
          containers: [app, proxy],
          volumes: [{ name: CONFIG_VOLUME, configMap: { name: configMapName(name) } }],
        },
      },
    },
  };
}

function service(name: string, options: ResolvedOptions): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: objectMeta(name, options.namespace, { app: name }),
    spec: {
      selector: { app: name },
      ports: [
        {
          name: 'http',
          port: options.ports.service,
          targetPort: options.ports.inbound,
          protocol: 'TCP',
          appProtocol: 'http',
        },
      ],
    },
  };
}
