import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../../src/config/parseNetwork.js';
import {
  classHeaderMatch,
  DEFAULT_GATEWAY,
  istioBackoff,
  istioManifest,
  istioRetryOn,
} from '../../../src/deploy/istio.js';
import { kubernetesNames } from '../../../src/deploy/kubernetesNames.js';
import { type MeshPlan, meshPlan } from '../../../src/deploy/meshPlan.js';
import {
  firstRoute,
  type IstioHttpRoute as HttpRoute,
  type IstioRequest as Request,
  type IstioRetries as Retries,
  istioRequest as request,
  type VirtualServiceSpec,
  virtualServices,
  wholeValue,
} from '../istioRoutes.js';
import { kubernetesProblems } from './kubernetesSchema.js';
import { example, NETWORKS } from './meshNetworks.js';

// The generated Istio config, checked two ways: strictly against Istio's CRD schemas, and by what
// Istio would do with it — the http route a request matches first, for every service and class
// (the readers are test/deploy/istioRoutes.ts, which the deployment-equivalence test shares).

/** Every value under a key named `key`, anywhere in `value`. */
function valuesAt(value: unknown, keys: ReadonlySet<string>): unknown[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(keys.has(k) ? [v] : []),
    ...valuesAt(v, keys),
  ]);
}

const DURATION = /^[0-9]+(\.[0-9]{1,9})?s$/;

function checkRetries(route: HttpRoute): void {
  // Every route retries explicitly: nothing falls to Istio's implicit 2 retries.
  const retries = route.retries as Retries;
  expect(typeof retries.attempts).toBe('number');
  if (retries.attempts === 0) {
    // Istio refuses retryOn or perTryTimeout beside attempts: 0.
    expect(Object.keys(retries)).toEqual(['attempts']);
  } else {
    const on = (retries.retryOn ?? '').split(',');
    expect(on).toContain('503');
    expect(on).toContain('429');
    expect(on).toContain('retriable-status-codes');
  }
}

describe('difftry mesh istio: the generated Istio config', () => {
  it('passes Istio’s CRD schemas, with no field they do not know, for 22 networks', () => {
    let objects = 0;
    for (const [name, network] of NETWORKS) {
      for (const object of istioManifest(meshPlan(network), { namespace: 'shop' }).objects) {
        expect(
          kubernetesProblems(object),
          `${name}: ${object.kind}/${object.metadata.name}`,
        ).toEqual([]);
        objects += 1;
      }
    }
    // Per service a DestinationRule and a Sidecar, per service with callers a VirtualService,
    // per network one Gateway, one ingress VirtualService and one EnvoyFilter (one edge service
    // each).
    expect(objects).toBe(509);
  });

  it.each(NETWORKS)(
    '%s: the first route for each class carries its retries at that hop; none or an unknown class gets the default’s',
    (_, network) => {
      const plan: MeshPlan = meshPlan(network);
      const names = kubernetesNames(plan);
      const byName = new Map(plan.services.map((s) => [s.name, s]));
      const { objects } = istioManifest(plan, { namespace: 'shop' });
      const { mesh, ingress } = virtualServices(objects);
      const unknown = 'platinum';
      expect(plan.classes).not.toContain(unknown);
      for (const service of plan.services) {
        for (const upstream of service.upstreams) {
          // One VirtualService per host is enough because every caller's hop policy is the callee's.
          const callee = byName.get(upstream.service);
          expect(upstream.classes).toEqual(callee?.calls);
          const host = names.get(upstream.service) as string;
          const spec = mesh.get(host) as VirtualServiceSpec;
          expect(spec.hosts).toEqual([host]);
          for (const hop of upstream.classes) {
            // Istio's exact match is case-sensitive; the class regex is not, as Envoy's generator.
            for (const spelling of [hop.className, hop.className.toUpperCase()]) {
              for (const method of plan.retryMethods) {
                const route = firstRoute(spec, request({ [plan.header]: spelling }, '/', method));
                expect(route.route[0]?.destination).toEqual({ host, port: { number: 80 } });
                expect(route.retries?.attempts).toBe(hop.retries);
                expect(route.headers).toBeUndefined();
              }
              // gRPC: a POST the runtime still retries.
              const grpc = firstRoute(
                spec,
                request(
                  { [plan.header]: spelling, 'content-type': 'application/grpc' },
                  '/',
                  'POST',
                ),
              );
              expect(grpc.name).toBe(`${host}-${hop.className}-grpc`);
              expect(grpc.retries?.attempts).toBe(hop.retries);
              // A method the sidecar never retries: the same class, no retry.
              const post = firstRoute(spec, request({ [plan.header]: spelling }, '/', 'POST'));
              expect(post.name).toBe(`${host}-${hop.className}-other-methods`);
              expect(post.retries).toEqual({ attempts: 0 });
              expect(post.headers).toBeUndefined();
            }
          }
          for (const headers of [{}, { [plan.header]: unknown }]) {
            const route = firstRoute(spec, request(headers));
            expect(route.retries?.attempts).toBe(upstream.unclassified.retries);
            expect(route.headers?.request?.set).toEqual({ [plan.header]: plan.defaultClass });
            const post = firstRoute(spec, request(headers, '/', 'POST'));
            expect(post.retries).toEqual({ attempts: 0 });
            expect(post.headers?.request?.set).toEqual({ [plan.header]: plan.defaultClass });
          }
        }
      }
      const called = new Set(plan.services.flatMap((s) => s.upstreams.map((u) => u.service)));
      expect(mesh.size).toBe(called.size);
      for (const spec of [...mesh.values(), ...ingress]) {
        for (const route of spec.http) checkRetries(route);
      }
      for (const duration of valuesAt(objects, new Set(['perTryTimeout', 'backoff', 'timeout']))) {
        expect(duration).toMatch(DURATION);
      }
      // The edge: each route replaces a client's class header, and retries into the edge service.
      const edges = plan.services.filter((s) => s.edge);
      expect(ingress).toHaveLength(edges.length);
      edges.forEach((edge, i) => {
        const spec = ingress[i] as VirtualServiceSpec;
        expect(spec.gateways).toEqual([DEFAULT_GATEWAY]);
        for (const route of spec.http) {
          expect(route.headers?.request?.remove).toEqual([plan.header]);
          const className = route.headers?.request?.set?.[plan.header] as string;
          expect(plan.classes).toContain(className);
          // Methods the sidecar never retries get none; the rest their class's limit.
          expect(route.retries?.attempts).toBe(
            route.name.endsWith('-other-methods')
              ? 0
              : edge.calls.find((h) => h.className === className)?.retries,
          );
        }
        const route = firstRoute(spec, request({ [plan.header]: plan.classes[0] as string }));
        expect(route.headers?.request?.set).toEqual({ [plan.header]: edge.edgeDefault });
      });
      const keys = objects.map((o) => `${o.kind}/${o.metadata.name}`);
      expect(new Set(keys).size).toBe(keys.length);
    },
  );

  const EDGE = [
    'classes: [{ name: gold, retries: 4, timeoutMs: 250 }, { name: bronze, retries: 0, timeoutMs: 1500 }]',
    'services:',
    '  - { name: web, capacity: 10, queue: 8, arrivals: { gold: 1, bronze: 5 }, calls: [{ to: db }] }',
    '  - { name: db, capacity: 10, queue: 1 }',
  ].join('\n');

  it('classifies at the edge by the rules in order, replacing a client’s class header', () => {
    const plan = meshPlan(parseNetwork(EDGE, 'edge.yaml'), {
      edgeRules: [
        { path: '/premium', class: 'gold' },
        { method: 'post', header: 'x-plan', value: 'gold', class: 'gold' },
        { header: 'x-api-key', valueEnv: 'GOLD_KEY', class: 'gold' },
        { header: 'x-partner', class: 'gold' },
      ],
    });
    const manifest = istioManifest(plan, { namespace: 'shop' });
    const [edge] = virtualServices(manifest.objects).ingress;
    const classOf = (r: Request) => {
      const route = firstRoute(edge as VirtualServiceSpec, r);
      expect(route.headers?.request?.remove).toEqual(['x-priority']);
      expect(route.route[0]?.destination.host).toBe('web');
      return [route.headers?.request?.set?.['x-priority'], route.retries?.attempts];
    };
    expect(classOf(request({ 'x-priority': 'bronze' }, '/premium/x'))).toEqual(['gold', 4]);
    expect(classOf(request({}, '/premium'))).toEqual(['gold', 4]);
    // Whole segments, as the sidecar matches: /premiumx is not under /premium.
    expect(classOf(request({}, '/premiumx'))).toEqual(['bronze', 0]);
    // POST is never retried, whatever its class.
    expect(classOf(request({ 'x-plan': 'gold' }, '/', 'POST'))).toEqual(['gold', 0]);
    expect(classOf(request({ 'x-plan': 'gold' }, '/', 'GET'))).toEqual(['bronze', 0]);
    expect(classOf(request({ 'x-partner': '' }))).toEqual(['gold', 4]);
    // A rule on a secret value cannot be written down: left out, and said so.
    expect(classOf(request({ 'x-api-key': 'secret', 'x-priority': 'gold' }))).toEqual([
      'bronze',
      0,
    ]);
    // Each rule: gRPC calls and its retried methods with retries, then the rest with none; a
    // POST-only rule has no retried-methods route. The rule on a secret value (2) is left out.
    expect(edge?.http.map((r) => r.name)).toEqual([
      'edge-0-gold-grpc',
      'edge-0-gold',
      'edge-0-gold-other-methods',
      'edge-1-gold-grpc',
      'edge-1-gold-other-methods',
      'edge-3-gold-grpc',
      'edge-3-gold',
      'edge-3-gold-other-methods',
      'edge-default-grpc',
      'edge-default',
      'edge-default-other-methods',
    ]);
    expect(manifest.limits.some((l) => l.includes('GOLD_KEY'))).toBe(true);
  });

  it('maps k = 0 to attempts 0 alone, with the per-try timeout on the route; otherwise perTryTimeout', () => {
    const plan = meshPlan(parseNetwork(EDGE, 'edge.yaml'));
    const db = virtualServices(istioManifest(plan, { namespace: 'shop' }).objects).mesh.get('db');
    const gold = firstRoute(db as VirtualServiceSpec, request({ 'x-priority': 'Gold' }));
    expect(gold.retries).toEqual({
      attempts: 4,
      perTryTimeout: '0.25s',
      retryOn:
        'connect-failure,reset,refused-stream,retriable-status-codes,503,429,unavailable,resource-exhausted',
      backoff: '0.2s',
    });
    expect(gold.timeout).toBeUndefined();
    const bronze = firstRoute(db as VirtualServiceSpec, request({}));
    expect(bronze.retries).toEqual({ attempts: 0 });
    expect(bronze.timeout).toBe('1.5s');
  });

  it('admits c at the application and m − c waiting, server side (Sidecar) and client side', () => {
    const plan = meshPlan(parseNetwork(EDGE, 'edge.yaml'));
    const { objects, limits } = istioManifest(plan, { namespace: 'shop' });
    const pool = (kind: string, name: string) => {
      const spec = objects.find((o) => o.kind === kind && o.metadata.name === name)?.spec as {
        workloadSelector?: unknown;
        inboundConnectionPool?: unknown;
        trafficPolicy?: { connectionPool: unknown };
        host?: string;
      };
      return spec;
    };
    const web = {
      tcp: { maxConnections: 1 },
      http: { http2MaxRequests: 1, http1MaxPendingRequests: 7 },
    };
    expect(pool('Sidecar', 'web')).toEqual({
      workloadSelector: { labels: { app: 'web' } },
      inboundConnectionPool: web,
    });
    expect(pool('DestinationRule', 'web')).toEqual({
      host: 'web',
      trafficPolicy: { connectionPool: web },
    });
    // m = c: Istio reads 0 pending as unlimited, so 1, and the limits say so.
    expect(pool('Sidecar', 'db').inboundConnectionPool).toEqual({
      tcp: { maxConnections: 1 },
      http: { http2MaxRequests: 1, http1MaxPendingRequests: 1 },
    });
    expect(limits.some((l) => l.includes('db (m = c)'))).toBe(true);
    expect(limits.some((l) => l.includes('retryBudget'))).toBe(true);
  });

  it('binds the edge to a named Gateway instead of its own, on the hosts given', () => {
    const plan = meshPlan(parseNetwork(EDGE, 'edge.yaml'));
    const { objects } = istioManifest(plan, {
      namespace: 'shop',
      gateway: 'istio-system/public',
      hosts: ['shop.example.com'],
    });
    expect(objects.some((o) => o.kind === 'Gateway')).toBe(false);
    const [edge] = virtualServices(objects).ingress;
    expect(edge?.gateways).toEqual(['istio-system/public']);
    expect(edge?.hosts).toEqual(['shop.example.com']);
    const own = istioManifest(plan, { namespace: 'shop', hosts: ['*.example.com'] }).objects;
    expect(own.find((o) => o.kind === 'Gateway')?.spec).toEqual({
      selector: { istio: 'ingressgateway' },
      servers: [{ port: { number: 80, name: 'http', protocol: 'HTTP' }, hosts: ['*.example.com'] }],
    });
    for (const gateway of ['Public', 'a/b/c', '/x', 'ns/']) {
      expect(() => istioManifest(plan, { namespace: 'shop', gateway })).toThrow(RangeError);
    }
    for (const hosts of [[], ['http://x'], ['a b']]) {
      expect(() => istioManifest(plan, { namespace: 'shop', hosts })).toThrow(RangeError);
    }
    expect(() => istioManifest(plan, { namespace: 'Shop' })).toThrow(RangeError);
  });

  it('matches a class name whole, any case, with its regex metacharacters escaped', () => {
    const { regex } = classHeaderMatch('a.b+');
    expect(regex).toBe('(?i)^a\\.b\\+$');
    expect(wholeValue(regex).test('A.B+')).toBe(true);
    expect(wholeValue(regex).test('axbb')).toBe(false);
    expect(wholeValue(regex).test('a.b+c')).toBe(false);
  });

  it('keeps the first retry’s mean delay of each backoff law in Istio’s base interval', () => {
    expect(istioBackoff({ kind: 'exponential', baseMs: 25, maxMs: 1000, jitter: 'full' })).toBe(
      '0.025s',
    );
    expect(istioBackoff({ kind: 'random', meanMs: 100 })).toBe('0.2s');
    expect(istioBackoff({ kind: 'constant', delayMs: 50 })).toBe('0.1s');
    const plan = meshPlan(example('hotel'));
    expect(istioRetryOn(plan)).toBe(
      'connect-failure,reset,refused-stream,retriable-status-codes,503,429,unavailable,resource-exhausted',
    );
  });

  it('is deterministic', () => {
    const plan = meshPlan(example('hotel-calls'));
    expect(JSON.stringify(istioManifest(plan, { namespace: 'default' }))).toBe(
      JSON.stringify(istioManifest(meshPlan(example('hotel-calls')), { namespace: 'default' })),
    );
  });
});
