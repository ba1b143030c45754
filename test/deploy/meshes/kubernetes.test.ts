import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseNetwork } from '../../../src/config/parseNetwork.js';
import { parseSidecarConfig } from '../../../src/config/parseSidecarConfig.js';
import type { NetworkSpec } from '../../../src/config/schema.js';
import {
  parseListen,
  type SidecarConfig,
  type UpstreamConfig,
} from '../../../src/config/sidecarSchema.js';
import {
  APP_CONTAINER,
  CONFIG_HASH_ANNOTATION,
  kubernetesManifest,
  PROXY_CONTAINER,
  podSidecarConfigs,
} from '../../../src/deploy/kubernetes.js';
import type { KubernetesObject } from '../../../src/deploy/kubernetesObject.js';
import { meshPlan } from '../../../src/deploy/meshPlan.js';
import { upstreamRouter } from '../../../src/mesh/upstreamRouting.js';
import { retryPolicy } from '../../../src/policy/retry/RetryPolicy.js';
import { kubernetesProblems } from './kubernetesSchema.js';
import { example, NETWORKS } from './meshNetworks.js';

// The generated Deployments, ConfigMaps and Services, checked two ways: strictly against the
// Kubernetes schemas, and by what the cluster and the sidecar would do with them — which Service
// an upstream URL reaches, which pod and port that Service selects, and the retries the sidecar
// of each pod gives each class on each hop, read from its own config with its own router and
// class resolution.

const OPTIONS = {
  appImage: 'registry.example/hotel/{service}:1.0',
  proxyImage: 'difftry/proxy:0.1.0',
  namespace: 'hotel',
} as const;

interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string } };
}
interface Container {
  readonly name: string;
  readonly image: string;
  readonly args?: readonly string[];
  readonly env?: readonly EnvVar[];
  readonly ports?: readonly { readonly name: string; readonly containerPort: number }[];
  readonly volumeMounts?: readonly {
    readonly name: string;
    readonly mountPath: string;
    readonly readOnly?: boolean;
  }[];
  readonly readinessProbe?: { readonly httpGet: { readonly path: string; readonly port: number } };
  readonly securityContext?: Record<string, unknown>;
}
interface PodTemplate {
  readonly metadata: {
    readonly labels: Record<string, string>;
    readonly annotations: Record<string, string>;
  };
  readonly spec: {
    readonly containers: readonly Container[];
    readonly volumes: readonly { readonly name: string; readonly configMap: { name: string } }[];
  };
}
interface DeploymentSpec {
  readonly replicas: number;
  readonly selector: { readonly matchLabels: Record<string, string> };
  readonly template: PodTemplate;
}
interface ServiceSpec {
  readonly selector: Record<string, string>;
  readonly ports: readonly { readonly name: string; readonly port: number; targetPort: number }[];
}

/** The objects of a manifest as the API server would hold them: by kind, then name. */
function cluster(objects: readonly KubernetesObject[]) {
  const parsed = parse(JSON.stringify(objects)) as KubernetesObject[];
  const of = <T>(kind: string) =>
    new Map(
      parsed
        .filter((o) => o.kind === kind)
        .map((o) => [o.metadata.name, { meta: o.metadata, spec: o.spec as T, object: o }]),
    );
  return {
    deployments: of<DeploymentSpec>('Deployment'),
    services: of<ServiceSpec>('Service'),
    configMaps: new Map(
      parsed
        .filter((o) => o.kind === 'ConfigMap')
        .map((o) => [o.metadata.name, (o as { data?: Record<string, string> }).data ?? {}]),
    ),
  };
}

const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

/** What a pod runs: its sidecar container and the sidecar config its mount gives it. */
function podOf(world: ReturnType<typeof cluster>, deployment: DeploymentSpec) {
  const containers = deployment.template.spec.containers;
  const proxy = containers.find((c) => c.name === PROXY_CONTAINER) as Container;
  const configPath = proxy.args?.[(proxy.args?.indexOf('--config') ?? -2) + 1] as string;
  const mount = proxy.volumeMounts?.find((m) => configPath.startsWith(`${m.mountPath}/`));
  if (mount === undefined) throw new Error(`${configPath} is on no mount of the sidecar`);
  const volume = deployment.template.spec.volumes.find((v) => v.name === mount.name);
  const data = world.configMaps.get(volume?.configMap.name ?? '');
  const file = configPath.slice(mount.mountPath.length + 1);
  const text = data?.[file];
  if (text === undefined) throw new Error(`no ConfigMap key ${file} behind ${configPath}`);
  return {
    proxy,
    app: containers.find((c) => c.name === APP_CONTAINER) as Container,
    mount,
    config: parseSidecarConfig(text, configPath),
  };
}

/** The Deployment (and the pod config) a request to `url` reaches, by DNS name and port. */
function resolveUrl(world: ReturnType<typeof cluster>, url: string, namespace: string) {
  const { hostname, port } = new URL(url);
  const [name, ns, svc, ...domain] = hostname.split('.');
  expect([ns, svc, domain.join('.')]).toEqual([namespace, 'svc', 'cluster.local']);
  const service = world.services.get(name as string);
  if (service === undefined) throw new Error(`${url}: no Service ${name}`);
  const servicePort = service.spec.ports.find((p) => p.port === Number(port || 80));
  if (servicePort === undefined) throw new Error(`${url}: Service ${name} has no port ${port}`);
  const selected = [...world.deployments.values()].filter((d) =>
    matches(service.spec.selector, d.spec.template.metadata.labels),
  );
  expect(selected).toHaveLength(1);
  const deployment = selected[0]?.spec as DeploymentSpec;
  return { servicePort, deployment, pod: podOf(world, deployment) };
}

/** The retry limit the sidecar gives a request with `classValue` to `upstream`, as outbound does. */
function sidecarRetries(
  config: SidecarConfig,
  upstream: UpstreamConfig,
  classValue: string | undefined,
): number {
  const policy = retryPolicy({
    classes: Object.fromEntries(
      config.classes.map((c) => [c.name, { retries: upstream.retries?.[c.name] ?? c.retries }]),
    ),
    ...(config.defaultClass !== undefined && { defaultClass: config.defaultClass }),
    header: config.header,
  });
  return policy.retryLimit(policy.classify(classValue));
}

describe('difftry mesh k8s: the generated manifests', () => {
  it('pass the Kubernetes schemas, every field known, for 22 networks', () => {
    let objects = 0;
    for (const [name, network] of NETWORKS) {
      for (const object of kubernetesManifest(network, OPTIONS).objects) {
        const problems = kubernetesProblems(object);
        if (problems.length > 0) throw new Error(`${name}: ${problems.join('\n')}`);
        objects += 1;
      }
    }
    // 3 per service: hotel 8 + 8, the generated ones 5–10 each.
    expect(objects).toBe(
      3 * NETWORKS.reduce((sum, [, network]) => sum + network.services.length, 0),
    );
  });

  it.each(NETWORKS)(
    '%s: each upstream URL reaches its Service, its pod and its inbound port; each hop retries as the plan says',
    (_, network) => {
      const plan = meshPlan(network);
      const manifest = kubernetesManifest(network, OPTIONS);
      const world = cluster(manifest.objects);
      expect(world.deployments.size).toBe(plan.services.length);
      for (const service of plan.services) {
        const mine = [...world.deployments.values()].find(
          (d) => podOf(world, d.spec).config.service === service.name,
        );
        if (mine === undefined) throw new Error(`no Deployment runs ${service.name}`);
        const deployment = mine.spec;
        expect(matches(deployment.selector.matchLabels, deployment.template.metadata.labels)).toBe(
          true,
        );
        const { proxy, app, mount, config } = podOf(world, deployment);
        expect(mount.readOnly).toBe(true);
        // The config is the plan: classes, admission, edge, and (below) every hop's retries.
        expect(config.classes.map((c) => c.name)).toEqual(plan.classes);
        expect(config.header.toLowerCase()).toBe(plan.header);
        expect(config.defaultClass ?? plan.classes.at(-1)).toBe(plan.defaultClass);
        expect(config.inbound?.concurrency).toBe(service.concurrency);
        expect(config.inbound?.capacity).toBe(service.capacity);
        expect(config.inbound?.edge !== undefined).toBe(service.edge);
        expect(parseListen(config.inbound?.listen ?? '').host).toBe('0.0.0.0');

        // The application reaches its sidecar where the config listens, and listens where the
        // sidecar sends.
        const env = new Map(app.env?.map((e) => [e.name, e.value]));
        if (config.outbound !== undefined) {
          const outbound = parseListen(config.outbound.listen);
          expect(outbound.host).toBe('127.0.0.1');
          expect(env.get('DIFFTRY_OUTBOUND')).toBe(`http://127.0.0.1:${outbound.port}`);
        }
        expect(`http://${env.get('DIFFTRY_APP_LISTEN')}`).toBe(config.inbound?.app);

        // Token: from the Secret, never a literal anywhere in the pod.
        const tokenEnv = config.identity?.tokenEnv as string;
        const token = proxy.env?.find((e) => e.name === tokenEnv);
        expect(token?.value).toBeUndefined();
        expect(token?.valueFrom?.secretKeyRef).toEqual({
          name: 'difftry-mesh-token',
          key: 'token',
        });
        for (const container of deployment.template.spec.containers) {
          for (const e of container.env ?? []) {
            if (e.name === tokenEnv || /token|secret|key/i.test(e.name)) {
              expect(e.value).toBeUndefined();
            }
          }
        }

        // Health and metrics on the admin listener, on the pod's address.
        const admin = parseListen(config.admin?.listen ?? '');
        expect(admin.host).toBe('0.0.0.0');
        expect(proxy.readinessProbe?.httpGet).toEqual({ path: '/healthz', port: admin.port });
        expect(proxy.ports?.map((p) => p.containerPort)).toContain(admin.port);
        const annotations = deployment.template.metadata.annotations;
        expect(annotations['prometheus.io/scrape']).toBe('true');
        expect(annotations['prometheus.io/port']).toBe(String(admin.port));
        expect(annotations['prometheus.io/path']).toBe('/metrics');
        expect(annotations[CONFIG_HASH_ANNOTATION]).toMatch(/^[0-9a-f]{64}$/);
        expect(proxy.securityContext).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });

        const upstreams = config.outbound?.upstreams ?? [];
        expect(upstreams.map((u) => u.name)).toEqual(service.upstreams.map((u) => u.service));
        const route = upstreamRouter(upstreams);
        for (const hop of service.upstreams) {
          const upstream = upstreams.find((u) => u.name === hop.service);
          if (upstream === undefined)
            throw new Error(`${service.name}: no upstream ${hop.service}`);
          // The URL reaches the Service of the upstream, whose port targets its sidecar's inbound.
          const target = resolveUrl(world, upstream.url, OPTIONS.namespace);
          expect(target.pod.config.service).toBe(hop.service);
          const inbound = parseListen(target.pod.config.inbound?.listen ?? '');
          expect(target.servicePort.targetPort).toBe(inbound.port);
          expect(target.pod.proxy.ports?.map((p) => p.containerPort)).toContain(inbound.port);
          // Every way the application may name it reaches it: path prefix, its network name,
          // its Service's names.
          const fqdn = new URL(upstream.url).hostname;
          const short = fqdn.split('.')[0] as string;
          for (const [host, path] of [
            [`127.0.0.1:${parseListen(config.outbound?.listen ?? '').port}`, `/${hop.service}/x`],
            [hop.service, '/x'],
            [fqdn, '/x'],
            [`${fqdn}:80`, '/x'],
            [short, '/x'],
          ] as const) {
            expect(route(host, path)?.upstream.name).toBe(hop.service);
          }
          // Each class (any case) gets its retries at this hop; none or unknown the default's.
          for (const cls of hop.classes) {
            for (const spelling of [cls.className, cls.className.toUpperCase()]) {
              expect(sidecarRetries(config, upstream, spelling)).toBe(cls.retries);
            }
            const spec = config.classes.find((c) => c.name === cls.className);
            expect(upstream.timeoutMs ?? spec?.timeoutMs).toBe(cls.perTryTimeoutMs);
            expect(spec?.backoff ?? config.backoff).toEqual(
              network.classes.find((c) => c.name === cls.className)?.backoff ?? network.backoff,
            );
          }
          for (const value of [undefined, 'platinum']) {
            expect(sidecarRetries(config, upstream, value)).toBe(hop.unclassified.retries);
          }
        }
      }
    },
  );

  it('is deterministic: the same network gives the same objects, byte for byte', () => {
    for (const [, network] of NETWORKS.slice(0, 4)) {
      expect(JSON.stringify(kubernetesManifest(network, OPTIONS))).toBe(
        JSON.stringify(kubernetesManifest(network, OPTIONS)),
      );
    }
  });

  it('maps the options: images, replicas, Secret, namespace, ports', () => {
    const manifest = kubernetesManifest(example('hotel'), {
      ...OPTIONS,
      replicas: 3,
      tokenSecret: 'hotel-mesh',
      namespace: 'shop',
      ports: { inbound: 16_000, app: 9000 },
    });
    const world = cluster(manifest.objects);
    expect([...world.services.keys()]).toContain('frontend');
    const frontend = world.deployments.get('frontend')?.spec as DeploymentSpec;
    expect(frontend.replicas).toBe(3);
    const { proxy, app, config } = podOf(world, frontend);
    expect(app.image).toBe('registry.example/hotel/frontend:1.0');
    expect(proxy.image).toBe('difftry/proxy:0.1.0');
    expect(proxy.args).toEqual(['proxy', '--config', '/etc/difftry/sidecar.yaml']);
    expect(proxy.env?.[0]?.valueFrom?.secretKeyRef?.name).toBe('hotel-mesh');
    expect(config.inbound?.listen).toBe('0.0.0.0:16000');
    expect(config.inbound?.app).toBe('http://127.0.0.1:9000');
    expect(config.outbound?.upstreams[0]?.url).toBe('http://search.shop.svc.cluster.local:80');
    expect(world.services.get('search')?.spec.ports).toEqual([
      { name: 'http', port: 80, targetPort: 16_000, protocol: 'TCP', appProtocol: 'http' },
    ]);
    for (const object of manifest.objects) expect(object.metadata.namespace).toBe('shop');
    expect(manifest.limits.join(' ')).toMatch(/127\.0\.0\.1:9000/);
  });

  it('gives edge rules on secret values their variables from a Secret, never a literal', () => {
    const network = parseNetwork(
      [
        'classes: [{ name: gold, retries: 3 }, { name: bronze, retries: 1 }]',
        'services:',
        '  - { name: web, capacity: 10, queue: 8, arrivals: { gold: 1 }, calls: [{ to: db }] }',
        '  - { name: db, capacity: 10, queue: 4 }',
        'edge:',
        '  rules:',
        '    - { header: x-api-key, valueEnv: GOLD_KEYS, class: gold }',
        '    - { header: x-partner, valueEnv: GOLD_KEYS, class: gold }',
        '    - { path: /admin, class: gold }',
      ].join('\n'),
      'keys.yaml',
    );
    const manifest = kubernetesManifest(network, { ...OPTIONS, edgeSecret: 'shop-keys' });
    const world = cluster(manifest.objects);
    const web = podOf(world, world.deployments.get('web')?.spec as DeploymentSpec);
    // The config names the variable; the pod takes it (once) from the Secret.
    expect(web.config.inbound?.edge?.rules[0]?.valueEnv).toBe('GOLD_KEYS');
    expect(web.proxy.env?.filter((v) => v.name === 'GOLD_KEYS')).toEqual([
      { name: 'GOLD_KEYS', valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'GOLD_KEYS' } } },
    ]);
    const db = podOf(world, world.deployments.get('db')?.spec as DeploymentSpec);
    expect(db.proxy.env?.map((v) => v.name)).toEqual(['DIFFTRY_MESH_TOKEN']);
    expect(manifest.limits).toContain(
      "The edge rules' values come from the Secret shop-keys (keys GOLD_KEYS, each a comma-separated list), referenced, not generated.",
    );
    for (const object of manifest.objects) expect(kubernetesProblems(object)).toEqual([]);
    // Without edge rules, the limits say every external request gets the default class.
    expect(kubernetesManifest(example('hotel'), OPTIONS).limits.join(' ')).toMatch(
      /no edge rules: every external request gets the edge's default class/,
    );
    expect(kubernetesManifest(example('hotel-calls'), OPTIONS).limits.join(' ')).not.toMatch(
      /no edge rules/,
    );
  });

  it('names objects by their Kubernetes names and refuses bad options and clashing names', () => {
    const network = parseNetwork(
      [
        'classes: [{ name: gold, retries: 3 }, { name: bronze, retries: 1 }]',
        'services:',
        '  - { name: Web_Front, capacity: 10, queue: 8, arrivals: { gold: 1 }, calls: [{ to: DB }] }',
        '  - { name: DB, capacity: 10, queue: 4 }',
      ].join('\n'),
      'names.yaml',
    );
    const manifest = kubernetesManifest(network, OPTIONS);
    expect(manifest.objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'ConfigMap/web-front-difftry',
      'Deployment/web-front',
      'Service/web-front',
      'ConfigMap/db-difftry',
      'Deployment/db',
      'Service/db',
    ]);
    const [web] = podSidecarConfigs(network, OPTIONS);
    // The Service's names route to DB too (`db` is DB's own name: hosts match in any case).
    expect(web?.outbound?.upstreams).toEqual([
      {
        name: 'DB',
        url: 'http://db.hotel.svc.cluster.local:80',
        hosts: ['db.hotel', 'db.hotel.svc', 'db.hotel.svc.cluster.local'],
      },
    ]);
    expect(() => kubernetesManifest(network, { ...OPTIONS, replicas: 0 })).toThrow(RangeError);
    expect(() => kubernetesManifest(network, { ...OPTIONS, tokenSecret: 'Bad_Name' })).toThrow(
      /tokenSecret/,
    );
    expect(() => kubernetesManifest(network, { ...OPTIONS, appImage: 'a b' })).toThrow(/appImage/);
    expect(() => kubernetesManifest(network, { ...OPTIONS, namespace: 'Shop' })).toThrow(
      /namespace/,
    );
    expect(() => kubernetesManifest(network, { ...OPTIONS, ports: { app: 15_001 } })).toThrow(
      /must differ/,
    );
    const clash = parseNetwork(
      [
        'classes: [{ name: gold, retries: 3 }]',
        'services:',
        '  - { name: a_b, capacity: 10, queue: 8, arrivals: { gold: 1 }, calls: [{ to: a-b }] }',
        '  - { name: a-b, capacity: 10, queue: 4 }',
      ].join('\n'),
      'clash.yaml',
    );
    expect(() => kubernetesManifest(clash, OPTIONS)).toThrow(/both be the Kubernetes name "a-b"/);
  });

  it('changes the pod template’s config hash exactly when the sidecar config changes', () => {
    const hash = (network: NetworkSpec) =>
      cluster(kubernetesManifest(network, OPTIONS).objects).deployments.get('frontend')?.spec
        .template.metadata.annotations[CONFIG_HASH_ANNOTATION];
    const hotel = example('hotel');
    expect(hash(hotel)).toBe(hash(example('hotel')));
    const raised = {
      ...hotel,
      classes: hotel.classes.map((c, i) => (i === 0 ? { ...c, retries: c.retries + 1 } : c)),
    };
    expect(hash(raised)).not.toBe(hash(hotel));
  });
});
