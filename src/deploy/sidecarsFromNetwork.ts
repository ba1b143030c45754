import { outgoingEdges } from '../config/networkRules.js';
import { type ResolvedHops, resolveHops, type ServiceHops } from '../config/resolveHops.js';
import type { NetworkSpec } from '../config/schema.js';
import type { EdgeRuleConfig, SidecarConfigInput } from '../config/sidecarSchema.js';
import { InvalidArgumentError } from '../core/InvalidArgumentError.js';

/** Options of {@link sidecarsFromNetwork}: where things listen, since a network file has no ports. */
export interface SidecarsFromNetworkOptions {
  /**
   * The host every listener binds and every URL names; default `127.0.0.1` (one machine).
   * @default '127.0.0.1'
   */
  readonly host?: string;
  /**
   * Ports: service i (in file order) gets its inbound listener on `basePort + 2i` and its
   * outbound one on `basePort + 2i + 1`; default 15000.
   * @default 15_000
   */
  readonly basePort?: number;
  /**
   * Service i's application listens on `appBasePort + i`; default 8080.
   * @default 8080
   */
  readonly appBasePort?: number;
  /**
   * The environment variable holding the mesh token; default `DIFFTRY_MESH_TOKEN`.
   * @default 'DIFFTRY_MESH_TOKEN'
   */
  readonly tokenEnv?: string;
  /**
   * The edge rules of every service with external arrivals, over the network file's
   * `edge.rules`; by default the file's, and with none there every external request gets the
   * edge's default class (the file's `edge.default`, else the default class).
   * @default the network file's `edge.rules`
   */
  readonly edgeRules?: readonly EdgeRuleConfig[];
  /**
   * Callers trusted at the edge besides the services (e.g. a load generator holding the mesh
   * token); default none.
   * @default none
   */
  readonly edgePeers?: readonly string[];
  /**
   * One pod (or machine) per service instead of one machine for all: every sidecar gets the same
   * listen addresses and application URL, and reaches each upstream where `upstream` says (e.g.
   * its Kubernetes Service). When given, `host`, `basePort` and `appBasePort` are not used.
   * @default none (one machine: `host`, `basePort`, `appBasePort`)
   */
  readonly perPod?: PodAddressing;
}

/** Where the sidecar of a service listens in its own pod, and how it reaches its upstreams. */
export interface PodAddressing {
  /** The inbound listener in every pod: `0.0.0.0:15006`. */
  readonly inboundListen: string;
  /** The outbound listener in every pod (keep it on loopback): `127.0.0.1:15001`. */
  readonly outboundListen: string;
  /** A listener for `/metrics` and `/healthz` only (`admin.listen`); none if absent. */
  readonly adminListen?: string;
  /** The application's URL in every pod: `http://127.0.0.1:8080`. */
  readonly app: string;
  /** An upstream service's URL, and more `Host` names that route to it, by its network name. */
  readonly upstream: (service: string) => {
    readonly url: string;
    readonly hosts?: readonly string[];
  };
}

/**
 * One sidecar config per service of a network file, so that one file describes the whole mesh:
 * - `classes` and `backoff` as in the file (the per-try `timeoutMs` of a class included);
 * - an upstream for every service it routes or calls to (`routes`, `calls`, `branches`), with
 *   `retries` and `timeouts` for each class whose hop into that service differs from the class's
 *   own policy (`resolveHops`: k_i^p and T_i^p belong to the service called), reached at the
 *   upstream's inbound listener;
 * - inbound admission with c = 1 and m = the service's `queue` (the model's M/M/1/m);
 * - edge classification on the services with external arrivals (see `edgeRules`);
 * - trust in the services that call it, which prove it with the mesh token (`identity`).
 *
 * Ports: every service on one machine (`host`, `basePort`, `appBasePort`), or with `perPod` the
 * same addresses in every pod and each upstream where `perPod.upstream` says.
 *
 * The configs are returned as written (defaults left out), in the file's service order.
 * @throws RangeError when the ports would pass 65535.
 * @example
 * ```ts
 * const configs = sidecarsFromNetwork(await loadNetworkFile('examples/hotel-calls.yaml'));
 * configs[0].inbound; // { listen: '127.0.0.1:15000', app: 'http://127.0.0.1:8080', … }
 * ```
 */
export function sidecarsFromNetwork(
  network: NetworkSpec,
  options: SidecarsFromNetworkOptions = {},
): SidecarConfigInput[] {
  const host = options.host ?? '127.0.0.1';
  const basePort = options.basePort ?? 15_000;
  const appBasePort = options.appBasePort ?? 8080;
  const tokenEnv = options.tokenEnv ?? 'DIFFTRY_MESH_TOKEN';
  const count = network.services.length;
  const perPod = options.perPod;
  // One pod per service: the ports are the same in every pod, so they cannot run out.
  const ranges =
    perPod !== undefined
      ? []
      : ([
          ['basePort', basePort, basePort + 2 * count - 1],
          ['appBasePort', appBasePort, appBasePort + count - 1],
        ] as const);
  for (const [name, first, last] of ranges) {
    if (!(Number.isInteger(first) && first >= 1 && last <= 65_535)) {
      throw new InvalidArgumentError(
        `${name} should be an integer from 1 to ${65_536 - (name === 'basePort' ? 2 : 1) * count} for ${count} services, got ${first}`,
      );
    }
  }
  const address = host.includes(':') ? `[${host}]` : host;
  const indexOf = new Map(network.services.map((service, i) => [service.name, i]));
  const inboundPort = (name: string) => basePort + 2 * (indexOf.get(name) ?? 0);
  const callees = network.services.map((service) => [
    ...new Set(outgoingEdges(service).map(({ edge }) => edge.to)),
  ]);
  const hops = resolveHops(network);
  const classes = hops.classes.map((c, p) => ({
    name: c.name,
    retries: c.retries,
    // The class's own backoff; the network's is the config's (`backoff` below).
    ...(network.classes[p]?.backoff !== undefined && { backoff: c.backoff }),
    ...(c.timeoutMs !== undefined && { timeoutMs: c.timeoutMs }),
  }));

  return network.services.map((service, i): SidecarConfigInput => {
    const callers = network.services
      .filter((_, j) => callees[j]?.includes(service.name))
      .map((caller) => caller.name);
    const external = Object.values(service.arrivals).some((rate) => rate > 0);
    const peers = [...new Set([...callers, ...(external ? (options.edgePeers ?? []) : [])])];
    const upstreams = (callees[i] ?? []).map((name) => {
      const pod = perPod?.upstream(name);
      return {
        name,
        url: pod?.url ?? `http://${address}:${inboundPort(name)}`,
        ...(pod?.hosts !== undefined && pod.hosts.length > 0 && { hosts: [...pod.hosts] }),
        ...upstreamOverrides(hops, hops.services[indexOf.get(name) ?? -1]),
      };
    });
    return {
      service: service.name,
      classes: classes.map((c) => ({ ...c })),
      ...(network.backoff !== undefined && { backoff: network.backoff }),
      identity: { tokenEnv },
      inbound: {
        listen: perPod?.inboundListen ?? `${address}:${basePort + 2 * i}`,
        app: perPod?.app ?? `http://${address}:${appBasePort + i}`,
        concurrency: 1,
        capacity: service.queue,
        ...(external && {
          edge: {
            rules: (options.edgeRules ?? network.edge?.rules ?? []).map((rule) => ({ ...rule })),
            ...(network.edge?.default !== undefined && { default: network.edge.default }),
          },
        }),
        ...(peers.length > 0 && { trust: { peers } }),
      },
      ...(upstreams.length > 0 && {
        outbound: {
          listen: perPod?.outboundListen ?? `${address}:${basePort + 2 * i + 1}`,
          upstreams,
        },
      }),
      ...(perPod?.adminListen !== undefined && { admin: { listen: perPod.adminListen } }),
    };
  });
}

/**
 * An upstream's `retries` and `timeouts` for the calls into `service` (its resolved hops): an entry for each class
 * whose hop there (`resolveHops`) differs from the class's own policy, so that the sidecar's rule
 * (`upstreamHop`) reads back exactly the resolved hop. Empty where nothing differs.
 */
export function upstreamOverrides(
  hops: ResolvedHops,
  service: ServiceHops | undefined,
): { retries?: Record<string, number>; timeouts?: Record<string, number> } {
  const into = service?.hops ?? [];
  const retries: Record<string, number> = {};
  const timeouts: Record<string, number> = {};
  into.forEach((hop, p) => {
    const c = hops.classes[p];
    if (c === undefined) return;
    if (hop.retries !== c.retries) retries[c.name] = hop.retries;
    if (hop.timeoutMs !== undefined && hop.timeoutMs !== c.timeoutMs) {
      timeouts[c.name] = hop.timeoutMs;
    }
  });
  return {
    ...(Object.keys(retries).length > 0 && { retries }),
    ...(Object.keys(timeouts).length > 0 && { timeouts }),
  };
}
