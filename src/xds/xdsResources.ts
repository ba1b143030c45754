import { envoyVirtualHost } from '../deploy/envoyVirtualHost.js';
import { callsInto, type MeshPlan } from '../deploy/meshPlan.js';

/** Where a service's instances listen: one endpoint of its cluster. */
export interface XdsEndpoint {
  readonly host: string;
  readonly port: number;
}

/** The xDS resource types the control plane serves, by type URL. */
export const XDS_TYPES = {
  listener: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  route: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
  cluster: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  endpoint: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
} as const;

/** One of {@link XDS_TYPES}. */
export type XdsTypeUrl = (typeof XDS_TYPES)[keyof typeof XDS_TYPES];

/** The Envoy message of each type URL (for encoding). */
export const XDS_MESSAGES: Readonly<Record<XdsTypeUrl, string>> = {
  [XDS_TYPES.listener]: 'envoy.config.listener.v3.Listener',
  [XDS_TYPES.route]: 'envoy.config.route.v3.RouteConfiguration',
  [XDS_TYPES.cluster]: 'envoy.config.cluster.v3.Cluster',
  [XDS_TYPES.endpoint]: 'envoy.config.endpoint.v3.ClusterLoadAssignment',
};

/** Every resource of one version, by type URL and resource name (proto JSON, snake_case). */
export type XdsResources = ReadonlyMap<XdsTypeUrl, ReadonlyMap<string, Record<string, unknown>>>;

const HCM_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const ROUTER_TYPE = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';
/** Resources arrive over the same ADS stream that asked for them. */
const ADS = { ads: {}, resource_api_version: 'V3' };

/** The name of the RouteConfiguration a service's Listener points to. */
export const routeName = (service: string): string => `${service}-routes`;

/**
 * The xDS resources of a mesh plan, for clients that call the services by name (`xds:///NAME`,
 * proxyless gRPC, or Envoy with `api_listener`s). Per service of the plan:
 * - a **Listener** `NAME` whose API listener is an HTTP connection manager with the router filter,
 *   taking its routes over ADS (RDS);
 * - a **RouteConfiguration** `NAME-routes`: the routes the Envoy generator gives a call into the
 *   service ({@link envoyVirtualHost}: per class a gRPC route with that class's retry policy at
 *   this hop, then the default class's for a call with no or an unknown class);
 * - a **Cluster** `NAME` of type EDS (round robin, no implicit cap on concurrent retries);
 * - a **ClusterLoadAssignment** `NAME` with the service's endpoints, one locality of weight 1
 *   (gRPC ignores a locality without weight); none known, no endpoint (calls fail UNAVAILABLE).
 * The hop policy of a call into a service is the same from every caller, so every client (every
 * node) gets the same resources.
 */
export function xdsResources(
  plan: MeshPlan,
  endpoints: Readonly<Record<string, readonly XdsEndpoint[]>>,
): XdsResources {
  const listeners = new Map<string, Record<string, unknown>>();
  const routes = new Map<string, Record<string, unknown>>();
  const clusters = new Map<string, Record<string, unknown>>();
  const assignments = new Map<string, Record<string, unknown>>();
  for (const service of plan.services) {
    const name = service.name;
    listeners.set(name, {
      name,
      api_listener: {
        api_listener: {
          '@type': HCM_TYPE,
          stat_prefix: name,
          rds: { config_source: ADS, route_config_name: routeName(name) },
          http_filters: [
            { name: 'envoy.filters.http.router', typed_config: { '@type': ROUTER_TYPE } },
          ],
        },
      },
    });
    routes.set(routeName(name), {
      name: routeName(name),
      virtual_hosts: [envoyVirtualHost(plan, callsInto(plan, service))],
    });
    clusters.set(name, {
      name,
      type: 'EDS',
      eds_cluster_config: { eds_config: ADS, service_name: name },
      connect_timeout: '1s',
      lb_policy: 'ROUND_ROBIN',
      // Only the class limits cap retries (Envoy's implicit cap is 3 at a time).
      circuit_breakers: { thresholds: [{ priority: 'DEFAULT', max_retries: 4_294_967_295 }] },
    });
    const own = endpoints[name] ?? [];
    assignments.set(name, {
      cluster_name: name,
      endpoints:
        own.length === 0
          ? []
          : [
              {
                locality: { region: 'difftry' },
                load_balancing_weight: 1,
                lb_endpoints: own.map((endpoint) => ({
                  endpoint: {
                    address: {
                      socket_address: { address: endpoint.host, port_value: endpoint.port },
                    },
                  },
                })),
              },
            ],
    });
  }
  return new Map<XdsTypeUrl, ReadonlyMap<string, Record<string, unknown>>>([
    [XDS_TYPES.listener, listeners],
    [XDS_TYPES.route, routes],
    [XDS_TYPES.cluster, clusters],
    [XDS_TYPES.endpoint, assignments],
  ]);
}
