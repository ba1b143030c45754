import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../../src/config/parseNetwork.js';
import { classCluster, envoySidecars, LOCAL_APP_CLUSTER } from '../../../src/deploy/envoy.js';
import { envoyLimits } from '../../../src/deploy/envoyGrpcLimits.js';
import { envoyBackOff } from '../../../src/deploy/envoyRetryPolicy.js';
import { type MeshPlan, meshPlan } from '../../../src/deploy/meshPlan.js';
import {
  firstMatch,
  listenersOf,
  retriesOf,
  type EnvoyVirtualHost as VirtualHost,
  virtualHosts,
} from '../envoyRoutes.js';
import { parseEnvoy } from './envoySchema.js';
import { example, NETWORKS } from './meshNetworks.js';

// The generated Envoy config, checked two ways: strictly against Envoy's own protos, and by what
// Envoy would do with it — the route a request matches first, for every service and class
// (the readers are test/deploy/envoyRoutes.ts, which the deployment-equivalence test shares).

describe('difftry mesh envoy: the generated Envoy config', () => {
  it('parses strictly against Envoy’s own protos, bootstrap and xDS, for 22 networks', () => {
    let documents = 0;
    for (const [, network] of NETWORKS) {
      for (const sidecar of envoySidecars(meshPlan(network))) {
        parseEnvoy('envoy.config.bootstrap.v3.Bootstrap', sidecar.bootstrap);
        parseEnvoy('envoy.service.discovery.v3.DiscoveryResponse', sidecar.xds.listeners);
        parseEnvoy('envoy.service.discovery.v3.DiscoveryResponse', sidecar.xds.clusters);
        documents += 3;
      }
    }
    expect(documents).toBeGreaterThan(300);
  });

  it.each(NETWORKS)(
    '%s: the first route for each class carries its retries at that hop; none or an unknown class gets the default’s',
    (_, network) => {
      const plan: MeshPlan = meshPlan(network);
      const sidecars = envoySidecars(plan);
      plan.services.forEach((service, i) => {
        const sidecar = sidecars[i];
        expect(sidecar?.service).toBe(service.name);
        const outbound = listenersOf(sidecar?.bootstrap ?? {}).find((l) =>
          l.name.startsWith('outbound_'),
        );
        if (service.upstreams.length === 0) {
          expect(outbound).toBeUndefined();
          return;
        }
        const hosts = virtualHosts(outbound);
        for (const upstream of service.upstreams) {
          const host = hosts.find((h) => h.domains.includes(upstream.service)) as VirtualHost;
          // Every route retries explicitly: nothing falls to Envoy's implicit default.
          // Nothing falls to a default: no virtual-host policy, and a route either retries by
          // its own policy (k ≥ 1) or has none, which Envoy reads as one attempt (k = 0).
          expect((host as { retry_policy?: unknown }).retry_policy).toBeUndefined();
          for (const route of host.routes) {
            const policy = route.route.retry_policy;
            if (policy !== undefined) expect(policy.num_retries).toBeGreaterThan(0);
          }
          for (const hop of upstream.classes) {
            for (const spelling of [hop.className, hop.className.toUpperCase()]) {
              for (const method of plan.retryMethods) {
                const route = firstMatch(host, '/any/path', {
                  [plan.header]: spelling,
                  ':method': method,
                });
                expect(route.route.cluster).toBe(upstream.service);
                expect(retriesOf(route)).toBe(hop.retries);
              }
              // gRPC: a POST the runtime still retries, on UNAVAILABLE and RESOURCE_EXHAUSTED.
              const grpc = firstMatch(host, '/shop.Cart/Add', {
                [plan.header]: spelling,
                ':method': 'POST',
                'content-type': 'application/grpc',
              });
              expect(grpc.name).toBe(`${upstream.service}-${hop.className}-grpc`);
              expect(retriesOf(grpc)).toBe(hop.retries);
              // A method the sidecar never retries: same class and per-try timeout, no retry.
              const post = firstMatch(host, '/', { [plan.header]: spelling, ':method': 'POST' });
              expect(post.name).toBe(`${upstream.service}-${hop.className}-other-methods`);
              expect(retriesOf(post)).toBe(0);
              expect(post.request_headers_to_add).toBeUndefined();
            }
          }
          for (const headers of [{}, { [plan.header]: 'platinum' }]) {
            for (const method of ['GET', 'PATCH']) {
              const route = firstMatch(host, '/', { ...headers, ':method': method });
              expect(retriesOf(route)).toBe(method === 'GET' ? upstream.unclassified.retries : 0);
              expect(route.request_headers_to_add?.[0]?.header).toEqual({
                key: plan.header,
                value: plan.defaultClass,
              });
            }
          }
        }
      });
    },
  );

  interface Cluster {
    readonly name: string;
    readonly load_assignment: {
      readonly endpoints: {
        readonly lb_endpoints: {
          readonly endpoint: { readonly address: { readonly socket_address: { address: string } } };
        }[];
      }[];
    };
    readonly circuit_breakers?: {
      readonly thresholds: {
        readonly max_retries?: number;
        readonly retry_budget?: {
          readonly budget_percent: { readonly value: number };
          readonly min_retry_concurrency?: number;
        };
      }[];
    };
  }
  const clustersOf = (bootstrap: Record<string, unknown>) =>
    (bootstrap.static_resources as { clusters: Cluster[] }).clusters;
  const hostOf = (cluster: Cluster) =>
    cluster.load_assignment.endpoints[0]?.lb_endpoints[0]?.endpoint.address.socket_address.address;

  it('sends admission 503s without x-envoy-overloaded, which a caller’s Envoy never retries', () => {
    const routers = (listener: unknown) =>
      (
        listener as {
          filter_chains: {
            filters: { typed_config: { http_filters: { typed_config: object }[] } }[];
          }[];
        }
      ).filter_chains[0]?.filters[0]?.typed_config.http_filters.map((f) => f.typed_config);
    for (const sidecar of envoySidecars(meshPlan(example('hotel')))) {
      const inbound = listenersOf(sidecar.bootstrap).find((l) => l.name.startsWith('inbound_'));
      expect(routers(inbound)).toEqual([
        {
          '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router',
          suppress_envoy_headers: true,
        },
      ]);
    }
  });

  it('lifts Envoy’s implicit cap of 3 concurrent retries on every upstream cluster', () => {
    for (const [, network] of NETWORKS.slice(0, 4)) {
      for (const sidecar of envoySidecars(meshPlan(network))) {
        for (const cluster of clustersOf(sidecar.bootstrap)) {
          if (cluster.name === LOCAL_APP_CLUSTER) continue;
          expect(cluster.circuit_breakers?.thresholds).toEqual([
            { priority: 'DEFAULT', max_retries: 4_294_967_295 },
          ]);
        }
      }
    }
  });

  it.each(NETWORKS.slice(0, 6))(
    '%s: per-class budgets: each class’s routes go to its own cluster with its budget, same endpoints',
    (_, network) => {
      const plan = meshPlan(network);
      // The top class gets a budget; the others get one only when it is the default class.
      const [top] = plan.classes as [string];
      const classBudgets = {
        [top]: { budgetPercent: 50 },
        [plan.defaultClass]: { budgetPercent: 12.5, minRetryConcurrency: 1 },
      };
      const sidecars = envoySidecars(plan, { classBudgets });
      plan.services.forEach((service, i) => {
        const bootstrap = sidecars[i]?.bootstrap ?? {};
        parseEnvoy('envoy.config.bootstrap.v3.Bootstrap', bootstrap);
        const clusters = clustersOf(bootstrap);
        const outbound = listenersOf(bootstrap).find((l) => l.name.startsWith('outbound_'));
        for (const upstream of service.upstreams) {
          const host = virtualHosts(outbound).find((h) =>
            h.domains.includes(upstream.service),
          ) as VirtualHost;
          const routed = (headers: Record<string, string>) => {
            const route = firstMatch(host, '/', headers);
            const cluster = clusters.find((c) => c.name === route.route.cluster) as Cluster;
            // Every class's cluster reaches the same upstream.
            expect(hostOf(cluster)).toBe(upstream.service);
            return { route, cluster };
          };
          for (const hop of upstream.classes) {
            const { route, cluster } = routed({ [plan.header]: hop.className });
            expect(cluster.name).toBe(classCluster(upstream.service, hop.className));
            expect(retriesOf(route)).toBe(hop.retries);
            const threshold = cluster.circuit_breakers?.thresholds[0];
            const budget = classBudgets[hop.className];
            if (budget === undefined) {
              expect(threshold).toEqual({ priority: 'DEFAULT', max_retries: 4_294_967_295 });
            } else {
              expect(threshold?.retry_budget?.budget_percent.value).toBe(budget.budgetPercent);
              expect(threshold?.retry_budget?.min_retry_concurrency).toBe(
                budget.minRetryConcurrency,
              );
            }
          }
          // No class: the default class's cluster, and so its budget.
          expect(routed({}).cluster.name).toBe(classCluster(upstream.service, plan.defaultClass));
        }
      });
    },
  );

  it('names the classes gRPC would cap at 5 attempts, and the edge rules left out', () => {
    // hotelReservation: high has k = 5 at every hop (6 attempts), low k = 1.
    expect(envoyLimits(meshPlan(example('hotel')))).toEqual([
      'gRPC clients served this over xDS make at most 5 attempts: class high (k up to 5) gets 4 retries there; Envoy itself makes all 5.',
    ]);
    const small = parseNetwork(
      [
        'classes: [{ name: gold, retries: 4 }, { name: bronze, retries: 1 }]',
        'services:',
        '  - { name: web, capacity: 10, queue: 8, arrivals: { gold: 1 }, calls: [{ to: db }] }',
        '  - { name: db, capacity: 10, queue: 4, retries: { bronze: 7 } }',
      ].join('\n'),
      'small.yaml',
    );
    expect(envoyLimits(meshPlan(small))).toEqual([
      'gRPC clients served this over xDS make at most 5 attempts: class bronze (k up to 7) gets 4 retries there; Envoy itself makes all 7.',
    ]);
    const keyed = meshPlan(small, {
      edgeRules: [
        { header: 'x-api-key', valueEnv: 'GOLD_KEYS', class: 'gold' },
        { path: '/gold', class: 'gold' },
      ],
    });
    expect(envoyLimits(keyed)).toContain(
      "web: the edge rules on secret values ($GOLD_KEYS) are left out (a static config cannot read them), so those requests get another rule's class or the edge's default.",
    );
  });

  it('refuses a budget for a class the network lacks, or out of range', () => {
    const plan = meshPlan(example('hotel'));
    expect(() => envoySidecars(plan, { classBudgets: { gold: { budgetPercent: 5 } } })).toThrow(
      /class "gold"/,
    );
    expect(() => envoySidecars(plan, { classBudgets: { high: { budgetPercent: 101 } } })).toThrow(
      /\[0, 100\]/,
    );
    expect(() =>
      envoySidecars(plan, {
        classBudgets: { high: { budgetPercent: 5, minRetryConcurrency: 1.5 } },
      }),
    ).toThrow(/integer/);
  });

  it('strips a client’s class header at the edge and sets it by the edge rules', () => {
    const network = parseNetwork(
      [
        'classes: [{ name: gold, retries: 4 }, { name: bronze, retries: 1 }]',
        'services:',
        '  - { name: web, capacity: 10, queue: 8, arrivals: { gold: 1, bronze: 5 }, calls: [{ to: db }] }',
        '  - { name: db, capacity: 10, queue: 4 }',
      ].join('\n'),
      'edge.yaml',
    );
    const plan = meshPlan(network, {
      edgeRules: [
        { path: '/premium', class: 'gold' },
        { header: 'x-api-key', value: 'k1', class: 'gold' },
      ],
    });
    const [web, db] = envoySidecars(plan);
    const inbound = (bootstrap: Record<string, unknown> | undefined) =>
      virtualHosts(
        listenersOf(bootstrap ?? {}).find((l) => l.name.startsWith('inbound_')),
      )[0] as VirtualHost;
    const edge = inbound(web?.bootstrap);
    const classOf = (path: string, headers: Record<string, string>) => {
      const route = firstMatch(edge, path, headers);
      expect(route.request_headers_to_remove).toEqual(['x-priority']);
      expect(route.route.cluster).toBe(LOCAL_APP_CLUSTER);
      return route.request_headers_to_add?.[0]?.header.value;
    };
    expect(classOf('/premium/x', { 'x-priority': 'bronze' })).toBe('gold');
    expect(classOf('/premium', {})).toBe('gold');
    // Whole segments, as the sidecar matches: /premiumx is not under /premium.
    expect(classOf('/premiumx', {})).toBe('bronze');
    expect(classOf('/', { 'x-api-key': 'k1' })).toBe('gold');
    expect(classOf('/', { 'x-api-key': 'k2', 'x-priority': 'gold' })).toBe('bronze');
    // Inside the mesh the caller's class is believed: no stripping, no rewriting.
    const internal = inbound(db?.bootstrap);
    expect(internal.routes).toHaveLength(1);
    expect(internal.routes[0]?.request_headers_to_remove).toBeUndefined();
    // Admission: c at the application, m − c waiting.
    const statics = web?.bootstrap.static_resources as
      | {
          clusters: { name: string; circuit_breakers?: { thresholds: Record<string, number>[] } }[];
        }
      | undefined;
    const localApp = statics?.clusters.find((c) => c.name === LOCAL_APP_CLUSTER);
    expect(localApp?.circuit_breakers?.thresholds[0]).toMatchObject({
      max_requests: 1,
      max_pending_requests: 7,
    });
  });

  it('keeps the mean delay of each backoff law Envoy cannot draw exactly', () => {
    expect(envoyBackOff({ kind: 'exponential', baseMs: 25, maxMs: 1000, jitter: 'full' })).toEqual({
      base_interval: '0.025s',
      max_interval: '1s',
    });
    // Envoy draws uniformly in [0, base] for the first retry: a mean of base / 2.
    expect(envoyBackOff({ kind: 'random', meanMs: 100 })).toEqual({
      base_interval: '0.2s',
      max_interval: '0.2s',
    });
    expect(envoyBackOff({ kind: 'constant', delayMs: 50 })).toEqual({
      base_interval: '0.1s',
      max_interval: '0.1s',
    });
  });
});
