import { join } from 'node:path';
import { resolveHops } from '../../config/resolveHops.js';
import type { NetworkSpec } from '../../config/schema.js';
import type { SidecarConfigInput } from '../../config/sidecarSchema.js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { upstreamOverrides } from '../../deploy/sidecarsFromNetwork.js';
import { type SidecarHandle, startSidecar } from '../../mesh/index.js';
import { seededRandom } from '../../model/random.js';
import type { XdsServer } from '../../xds/xdsServer.js';
import { TestbedTracing } from '../trace/TestbedTracing.js';
import { type CallProgram, callPrograms } from './callProgram.js';
import type { Downstream } from './Downstream.js';
import { directDownstream } from './directDownstream.js';
import type { ServiceWindowStats, TestbedService } from './serviceStation.js';
import { sidecarDownstream } from './sidecarDownstream.js';
import {
  type ExternalClientPlan,
  type Ingress,
  type IngressPlan,
  startIngress,
} from './startIngress.js';
import { startService } from './startService.js';
import {
  grpcXdsNetwork,
  TESTBED_TRANSPORTS,
  type TestbedNetworkOptions,
  type TestbedTransport,
  testbedNetwork,
} from './testbedNetwork.js';

/** Options of {@link startTestbed}: the network's what-ifs, and how it is deployed. */
export interface TestbedOptions extends TestbedNetworkOptions {
  /** Seed of every service time, endpoint and retry-delay draw; default 1. */
  readonly seed?: number;
  /**
   * Each service calls its children through its own DiffTry sidecar (`startSidecar`, outbound
   * listener, path-prefix routing), and external requests enter through an ingress sidecar:
   * default true. false: the same retries made in-process by the runtime's `retry()`.
   */
  readonly sidecars?: boolean;
  /**
   * The class header; default `x-priority` (on the gRPC testbed it must be: the xDS routes match
   * the class on it).
   */
  readonly header?: string;
  /**
   * How services talk (default `http`): `http`, `node:http` services calling through sidecars
   * or in-process retries (see `sidecars`); `grpc-xds`, gRPC services calling their children over
   * `xds:///CHILD` channels configured by an xDS control plane the testbed starts, every retry
   * between services made by gRPC from the routes it serves (`sidecars` is then ignored).
   */
  readonly transport?: TestbedTransport;
  /**
   * Start an ingress (default true): a DiffTry sidecar (or, without sidecars, a retrying server)
   * in front of the entry services, for clients that cannot retry themselves. false: external
   * clients call the entry services directly with {@link Testbed.externalClient}'s retries.
   */
  readonly ingress?: boolean;
  /**
   * Trace every request into this folder (HTTP only): each service's server spans and its calls'
   * attempts, one tracer provider per service (its `service.name`), as OTLP/JSON lines in
   * `services.otlp.jsonl`; the external client's attempts in `load.otlp.jsonl`, as service
   * `load`. `difftry from-traces` reads them (docs/traces.md).
   */
  readonly traces?: string;
}

/** A running testbed. */
export interface Testbed {
  /** The network as it runs: scaled, with the options' what-ifs applied. */
  readonly network: NetworkSpec;
  /** How services talk: `http` or `grpc-xds`. */
  readonly transport: TestbedTransport;
  /** Services call through DiffTry sidecars (HTTP only; false on the gRPC testbed). */
  readonly sidecars: boolean;
  /**
   * Where external requests go: `{ingressUrl}/{SERVICE}/{endpoint}` with the class header; ''
   * without an ingress (`ingress: false`).
   */
  readonly ingressUrl: string;
  /**
   * The external client's retries at the entry services, to build a client that calls them
   * directly (the load generator does, in its own thread).
   */
  readonly externalClient: ExternalClientPlan;
  /** The services with external arrivals, in file order. */
  readonly entries: readonly string[];
  readonly services: readonly TestbedService[];
  /**
   * Every URL the testbed listens on: services, sidecars' outbound listeners, the ingress; on the
   * gRPC testbed the services and the xDS control plane as `grpc://127.0.0.1:PORT`.
   */
  readonly listeners: readonly string[];
  /** Every service's call program (to draw an entry's endpoint). */
  readonly programs: ReadonlyMap<string, CallProgram>;
  /** Starts the measurement window at every service (zeroes their counters). */
  startWindow(): void;
  /** Every service's counts since the window started, in file order. */
  stats(): ServiceWindowStats[];
  /**
   * Stops everything: ingress, sidecars, clients, services, the xDS control plane; every socket
   * and timer.
   */
  close(): Promise<void>;
}

/**
 * Starts a call-graph network (a file with `calls`/`branches`) as live services on 127.0.0.1,
 * each the model's station (admission with c = 1 and m = `queue` in front of a timer of mean 1/μ,
 * then the calls to its children), and an ingress for the external requests, which retries them
 * with the entry service's limits as the analysis's external client does:
 * - `transport: 'http'` (default): one {@link startService} per service, each calling its
 *   children through its own DiffTry sidecar (or in-process, `sidecars: false`);
 * - `transport: 'grpc-xds'`: one `startGrpcService` per service, an xDS control plane
 *   (`createXdsServer`) serving the network's per-class routes and retry policies with every
 *   service's endpoint, and each caller (the ingress and the external client too) calling over
 *   `xds:///CHILD` channels bootstrapped at it, so that gRPC makes every retry.
 *
 * Everything listens on port 0; `close()` stops it all, and a failure while starting closes what
 * was started.
 * @throws RangeError for a routing network (it has no calls to make) or a bad option.
 * @example
 * ```ts
 * const testbed = await startTestbed(hotelCalls, { scale: 0.5, retries: { high: 5, low: 1 } });
 * try {
 *   await fetch(`${testbed.ingressUrl}/frontend/search`, { headers: { 'x-priority': 'high' } });
 * } finally {
 *   await testbed.close();
 * }
 * ```
 */
export async function startTestbed(
  file: NetworkSpec,
  options: Readonly<TestbedOptions> = {},
): Promise<Testbed> {
  const network = testbedNetwork(file, options);
  const routed = network.services.find((s) => (s.routes?.length ?? 0) > 0);
  if (routed !== undefined) {
    throw new InvalidArgumentError(
      `the testbed runs call-graph networks (calls, branches); service "${routed.name}" has routes — give the call-graph form of the network`,
    );
  }
  const transport = options.transport ?? 'http';
  if (!TESTBED_TRANSPORTS.includes(transport)) {
    throw new InvalidArgumentError(
      `transport should be one of ${TESTBED_TRANSPORTS.join(', ')}, got "${String(transport)}"`,
    );
  }
  const grpc = transport === 'grpc-xds';
  const header = options.header ?? 'x-priority';
  if (grpc && header.toLowerCase() !== 'x-priority') {
    throw new InvalidArgumentError(
      `the gRPC testbed carries the class in x-priority (the key its xDS routes match), got header "${header}"`,
    );
  }
  // What the control plane will serve, checked before anything starts.
  const served = grpc ? grpcXdsNetwork(network) : network;
  const seed = options.seed ?? 1;
  const useSidecars = !grpc && (options.sidecars ?? true);
  const classes = network.classes.map((c) => c.name);
  const programs = callPrograms(network);
  const count = network.services.length;
  const entries = network.services
    .filter((s) => Object.values(s.arrivals).some((rate) => rate > 0))
    .map((s) => s.name);

  const services: TestbedService[] = [];
  const sidecars: SidecarHandle[] = [];
  const downstreams: Downstream[] = [];
  let ingress: Ingress | undefined;
  let xds: XdsServer | undefined;
  if (options.traces !== undefined && grpc) {
    throw new InvalidArgumentError('traces: the gRPC testbed is not traced; use the HTTP one');
  }
  const tracing =
    options.traces === undefined
      ? undefined
      : TestbedTracing.open(join(options.traces, TESTBED_TRACE_FILES.services));
  const close = async () => {
    await Promise.allSettled([
      ingress?.close(),
      ...sidecars.map((s) => s.close({ graceMs: 0 })),
      ...downstreams.map((d) => d.close()),
    ]);
    await Promise.allSettled(services.map((s) => s.close()));
    await xds?.close();
    await tracing?.close();
  };

  try {
    // The gRPC modules are optional peers of the package: loaded only for the gRPC testbed.
    const grpcModules = grpc
      ? await Promise.all([
          import('./startGrpcService.js'),
          import('./grpcXdsDownstream.js'),
          import('../../xds/xdsServer.js'),
        ])
      : undefined;
    const ports = new Map<string, number>();
    for (const [i, spec] of network.services.entries()) {
      const program = programs.get(spec.name) as CallProgram;
      const children = childrenOf(program);
      const serviceOptions = {
        name: spec.name,
        capacity: spec.capacity,
        queue: spec.queue,
        classes,
        program,
        childPrograms: new Map(children.map((c) => [c, programs.get(c) as CallProgram])),
        random: seededRandom(seed, 1 + i),
        header,
        ...(tracing === undefined ? {} : { tracing: await tracing.of(spec.name) }),
      };
      if (grpcModules === undefined) {
        services.push(await startService(serviceOptions));
      } else {
        const service = await grpcModules[0].startGrpcService(serviceOptions);
        services.push(service);
        ports.set(service.name, service.port);
      }
    }
    const urlOf = new Map(services.map((s) => [s.name, s.url]));
    const hops = resolveHops(network);
    const classBackoffs = hops.classes.map((c) => ({ name: c.name, backoff: c.backoff }));
    const directTargets = (targets: readonly string[]) =>
      Object.fromEntries(
        targets.map((t) => {
          const into = hops.services.find((s) => s.name === t)?.hops ?? [];
          const timeoutsMs: Record<string, number> = {};
          into.forEach((hop, p) => {
            if (hop.timeoutMs !== undefined) timeoutsMs[classes[p] as string] = hop.timeoutMs;
          });
          return [
            t,
            {
              url: urlOf.get(t) as string,
              retryLimits: Object.fromEntries(classes.map((c, p) => [c, into[p]?.retries ?? 0])),
              timeoutsMs,
            },
          ];
        }),
      );

    if (grpcModules !== undefined) {
      const [, { grpcXdsDownstream }, { createXdsServer }] = grpcModules;
      // The network as it runs (limits, backoff, what-ifs), so the routes are the same
      // decisions the HTTP testbed's sidecars make (with grpc-js-xds's reading of 1 s fixed).
      xds = await createXdsServer({
        network: served,
        endpoints: Object.fromEntries(
          [...ports].map(([name, port]) => [name, [{ host: '127.0.0.1', port }]]),
        ),
      });
      const xdsServer = `127.0.0.1:${xds.port}`;
      const ready: Promise<void>[] = [];
      for (const service of services) {
        const children = childrenOf(programs.get(service.name) as CallProgram);
        if (children.length === 0) continue;
        const downstream = grpcXdsDownstream({
          xdsServer,
          children,
          node: `testbed-${service.name}`,
          header,
        });
        downstreams.push(downstream);
        service.useDownstream(downstream);
        ready.push(downstream.ready());
      }
      await Promise.all(ready);
    } else {
      for (const [i, service] of services.entries()) {
        const children = childrenOf(programs.get(service.name) as CallProgram);
        if (children.length === 0) continue;
        const random = seededRandom(seed, 1 + count + i);
        const serviceTracing = await tracing?.of(service.name);
        if (useSidecars) {
          const sidecar = await startSidecar(
            sidecarConfig(network, service.name, children, urlOf, header),
            {
              random,
              source: `sidecar of ${service.name}`,
              ...(serviceTracing === undefined ? {} : { telemetry: serviceTracing.providers }),
            },
          );
          sidecars.push(sidecar);
          const downstream = sidecarDownstream({
            outboundUrl: sidecar.outboundUrl as string,
            header,
            ...(serviceTracing === undefined ? {} : { tracing: serviceTracing }),
          });
          downstreams.push(downstream);
          service.useDownstream(downstream);
        } else {
          const downstream = directDownstream({
            targets: directTargets(children),
            classes: classBackoffs,
            header,
            random,
            ...(serviceTracing === undefined ? {} : { tracing: serviceTracing }),
          });
          downstreams.push(downstream);
          service.useDownstream(downstream);
        }
      }
    }
    const externalClient: ExternalClientPlan = {
      targets: directTargets(entries),
      classes: classBackoffs,
      header,
      seed,
      stream: 1 + 2 * count,
      ...(xds !== undefined && {
        xds: { server: `127.0.0.1:${xds.port}`, node: 'testbed-external-client' },
      }),
      ...(options.traces !== undefined && {
        traces: join(options.traces, TESTBED_TRACE_FILES.load),
      }),
    };
    const ingressPlan: IngressPlan = useSidecars
      ? {
          kind: 'sidecar',
          config: sidecarConfig(network, 'ingress', entries, urlOf, header),
          seed,
          stream: 1 + 2 * count,
        }
      : { kind: 'direct', ...externalClient };
    if ((options.ingress ?? true) && entries.length > 0) {
      ingress = await startIngress(ingressPlan);
    }
    const ingressUrl = ingress?.url ?? '';
    return {
      network,
      transport,
      sidecars: useSidecars,
      ingressUrl,
      externalClient,
      entries,
      services,
      listeners: [
        ...services.map((s) => s.url),
        ...sidecars.map((s) => s.outboundUrl as string),
        ...(xds === undefined ? [] : [`grpc://127.0.0.1:${xds.port}`]),
        ...(ingressUrl === '' ? [] : [ingressUrl]),
      ],
      programs,
      startWindow: () => {
        for (const s of services) s.startWindow();
      },
      stats: () => services.map((s) => s.stats()),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The files a traced testbed writes in its `traces` folder. */
export const TESTBED_TRACE_FILES = Object.freeze({
  services: 'services.otlp.jsonl',
  load: 'load.otlp.jsonl',
});

/** The services a program calls, each once, in order of first appearance. */
export function childrenOf(program: CallProgram): string[] {
  const names = new Set<string>();
  const steps = [...program.steps, ...program.branches.flatMap((b) => b.steps)];
  for (const step of steps) {
    const calls = step.kind === 'sequential' ? [step.call] : step.calls;
    for (const call of calls) names.add(call.to);
  }
  return [...names];
}

/**
 * The config of `caller`'s sidecar: outbound only (admission stays in the service, around its own
 * work), an upstream per child at the child's own URL with the child's hops (k_j^p and T_j^p, as
 * the analysis: `resolveHops`, as `difftry mesh sidecars` writes them), the classes' retry
 * delays, and no limit on connections.
 */
export function sidecarConfig(
  network: NetworkSpec,
  caller: string,
  targets: readonly string[],
  urlOf: ReadonlyMap<string, string>,
  header = 'x-priority',
): SidecarConfigInput {
  const hops = resolveHops(network);
  return {
    service: caller,
    header,
    classes: hops.classes.map((c, p) => ({
      name: c.name,
      retries: c.retries,
      ...(c.timeoutMs !== undefined && { timeoutMs: c.timeoutMs }),
      ...(network.classes[p]?.backoff !== undefined && { backoff: c.backoff }),
    })),
    ...(network.backoff !== undefined && { backoff: network.backoff }),
    outbound: {
      listen: '127.0.0.1:0',
      upstreams: targets.map((name) => ({
        name,
        url: urlOf.get(name) as string,
        ...upstreamOverrides(
          hops,
          hops.services.find((s) => s.name === name),
        ),
      })),
    },
    shutdownGraceMs: 0,
  };
}
