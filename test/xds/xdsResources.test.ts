import { describe, expect, it } from 'vitest';
import { meshPlan } from '../../src/deploy/meshPlan.js';
import { parseEnvoy } from '../../src/xds/envoyApi.js';
import {
  routeName,
  XDS_MESSAGES,
  XDS_TYPES,
  type XdsTypeUrl,
  xdsResources,
} from '../../src/xds/xdsResources.js';
import { grpcRoute, type EnvoyRoute as Route } from '../deploy/envoyRoutes.js';
import { NETWORKS } from '../deploy/meshes/meshNetworks.js';

// The resources the control plane serves: strictly Envoy's, and, read the way a proxyless gRPC
// client reads them (gRFC A28 route matching: metadata headers, content-type application/grpc,
// no :method; retry_on's gRPC codes; num_retries + 1 attempts), DiffTry's limits at every hop.
// grpcRoute, the reader, is shared with the deployment-equivalence test (test/deploy).

describe('xdsResources', () => {
  it('serves strictly valid Envoy resources for 22 networks', () => {
    let count = 0;
    for (const [, network] of NETWORKS) {
      const resources = xdsResources(meshPlan(network), {});
      for (const [typeUrl, named] of resources) {
        for (const json of named.values()) {
          parseEnvoy(XDS_MESSAGES[typeUrl as XdsTypeUrl], json);
          count++;
        }
      }
    }
    expect(count).toBe(154 * 4); // 154 services × (Listener, routes, Cluster, endpoints)
  });

  it.each(NETWORKS)(
    '%s: a gRPC call of each class makes k + 1 attempts at every service',
    (_, network) => {
      const plan = meshPlan(network);
      const resources = xdsResources(plan, {});
      for (const service of plan.services) {
        const listener = resources.get(XDS_TYPES.listener)?.get(service.name) as {
          api_listener: { api_listener: { rds: { route_config_name: string } } };
        };
        const name = listener.api_listener.api_listener.rds.route_config_name;
        expect(name).toBe(routeName(service.name));
        const config = resources.get(XDS_TYPES.route)?.get(name) as {
          virtual_hosts: { domains: string[]; routes: Route[] }[];
        };
        const host = config.virtual_hosts[0];
        expect(host?.domains).toContain(service.name);
        const routes = host?.routes ?? [];
        for (const hop of service.calls) {
          for (const spelling of [hop.className, hop.className.toUpperCase()]) {
            const route = grpcRoute(routes, { [plan.header]: spelling });
            expect(route.route.cluster).toBe(service.name);
            expect(route.route.retry_policy?.num_retries ?? 0).toBe(hop.retries);
            if (hop.retries > 0) {
              expect(route.route.retry_policy?.retry_on.split(',')).toEqual(
                expect.arrayContaining(['unavailable', 'resource-exhausted']),
              );
            }
          }
        }
        const fallback = service.calls.find((h) => h.className === plan.defaultClass);
        for (const metadata of [{}, { [plan.header]: 'platinum' }]) {
          expect(grpcRoute(routes, metadata).route.retry_policy?.num_retries ?? 0).toBe(
            fallback?.retries,
          );
        }
        const cluster = resources.get(XDS_TYPES.cluster)?.get(service.name) as {
          type: string;
          eds_cluster_config: { service_name: string };
        };
        expect(cluster.type).toBe('EDS');
        expect(cluster.eds_cluster_config.service_name).toBe(service.name);
      }
    },
  );

  it('puts the given endpoints in one weighted locality, and none when none are known', () => {
    const plan = meshPlan(NETWORKS[0]?.[1] as never);
    const resources = xdsResources(plan, {
      search: [
        { host: '127.0.0.1', port: 50051 },
        { host: '127.0.0.1', port: 50052 },
      ],
    });
    expect(resources.get(XDS_TYPES.endpoint)?.get('search')).toEqual({
      cluster_name: 'search',
      endpoints: [
        {
          locality: { region: 'difftry' },
          load_balancing_weight: 1,
          lb_endpoints: [50051, 50052].map((port) => ({
            endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: port } } },
          })),
        },
      ],
    });
    expect(resources.get(XDS_TYPES.endpoint)?.get('geo')).toEqual({
      cluster_name: 'geo',
      endpoints: [],
    });
  });
});
