import { type SidecarHandle, startSidecar } from '../../mesh/index.js';
import { DEFAULT_BACKOFF } from '../../model/backoff/BackoffDescription.js';
import { seededRandom } from '../../model/random.js';
import type { NetworkSpec } from '../../spec/schema.js';
import type { SidecarConfigInput } from '../../spec/sidecarSchema.js';
import { type CallProgram, callPrograms } from './callProgram.js';
import type { Downstream } from './Downstream.js';
import { directDownstream } from './directDownstream.js';
import { sidecarDownstream } from './sidecarDownstream.js';
import {
  type ExternalClientPlan,
  type Ingress,
  type IngressPlan,
  startIngress,
} from './startIngress.js';
import { type ServiceWindowStats, startService, type TestbedService } from './startService.js';
import { hopRetryLimit, type TestbedNetworkOptions, testbedNetwork } from './testbedNetwork.js';

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
  /** The class header; default `x-priority`. */
  readonly header?: string;
  /**
   * Start an ingress (default true): a DiffTry sidecar (or, without sidecars, a retrying server)
   * in front of the entry services, for clients that cannot retry themselves. false: external
   * clients call the entry services directly with {@link Testbed.externalClient}'s retries.
   */
  readonly ingress?: boolean;
}

/** A running testbed. */
export interface Testbed {
  /** The network as it runs: scaled, with the options' what-ifs applied. */
  readonly network: NetworkSpec;
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
  /** Every URL the testbed listens on: services, sidecars' outbound listeners, the ingress. */
  readonly listeners: readonly string[];
  /** Every service's call program (to draw an entry's endpoint). */
  readonly programs: ReadonlyMap<string, CallProgram>;
  /** Starts the measurement window at every service (zeroes their counters). */
  startWindow(): void;
  /** Every service's counts since the window started, in file order. */
  stats(): ServiceWindowStats[];
  /** Stops everything: ingress, sidecars, clients, services; every socket and timer. */
  close(): Promise<void>;
}

/**
 * Starts a call-graph network (a file with `calls`/`branches`) as live HTTP services on
 * 127.0.0.1: one {@link startService} per service (admission with c = 1 and m = `queue` in front
 * of a timer of mean 1/μ, then the calls to its children), each calling its children through its
 * own DiffTry sidecar (or in-process, `sidecars: false`), and an ingress for the external
 * requests, which retries them with the entry service's limits as the analysis's external client
 * does. Everything listens on port 0; `close()` stops it all, and a failure while starting closes
 * what was started.
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
    throw new RangeError(
      `the testbed runs call-graph networks (calls, branches); service "${routed.name}" has routes — give the call-graph form of the network`,
    );
  }
  const seed = options.seed ?? 1;
  const useSidecars = options.sidecars ?? true;
  const header = options.header ?? 'x-priority';
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
  const close = async () => {
    await Promise.allSettled([
      ingress?.close(),
      ...sidecars.map((s) => s.close({ graceMs: 0 })),
      ...downstreams.map((d) => d.close()),
    ]);
    await Promise.allSettled(services.map((s) => s.close()));
  };

  try {
    for (const [i, spec] of network.services.entries()) {
      const program = programs.get(spec.name) as CallProgram;
      const children = childrenOf(program);
      services.push(
        await startService({
          name: spec.name,
          capacity: spec.capacity,
          queue: spec.queue,
          classes,
          program,
          childPrograms: new Map(children.map((c) => [c, programs.get(c) as CallProgram])),
          random: seededRandom(seed, 1 + i),
          header,
        }),
      );
    }
    const urlOf = new Map(services.map((s) => [s.name, s.url]));
    const backoffOf = (p: number) =>
      network.classes[p]?.backoff ?? network.backoff ?? DEFAULT_BACKOFF;
    const classBackoffs = classes.map((name, p) => ({ name, backoff: backoffOf(p) }));
    const directTargets = (targets: readonly string[]) =>
      Object.fromEntries(
        targets.map((t) => [
          t,
          {
            url: urlOf.get(t) as string,
            retryLimits: Object.fromEntries(classes.map((c) => [c, hopRetryLimit(network, t, c)])),
          },
        ]),
      );

    for (const [i, service] of services.entries()) {
      const children = childrenOf(programs.get(service.name) as CallProgram);
      if (children.length === 0) continue;
      const random = seededRandom(seed, 1 + count + i);
      if (useSidecars) {
        const sidecar = await startSidecar(
          sidecarConfig(network, service.name, children, urlOf, header),
          { random, source: `sidecar of ${service.name}` },
        );
        sidecars.push(sidecar);
        const downstream = sidecarDownstream({
          outboundUrl: sidecar.outboundUrl as string,
          header,
        });
        downstreams.push(downstream);
        service.useDownstream(downstream);
      } else {
        const downstream = directDownstream({
          targets: directTargets(children),
          classes: classBackoffs,
          header,
          random,
        });
        downstreams.push(downstream);
        service.useDownstream(downstream);
      }
    }
    const externalClient: ExternalClientPlan = {
      targets: directTargets(entries),
      classes: classBackoffs,
      header,
      seed,
      stream: 1 + 2 * count,
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
      sidecars: useSidecars,
      ingressUrl,
      externalClient,
      entries,
      services,
      listeners: [
        ...services.map((s) => s.url),
        ...sidecars.map((s) => s.outboundUrl as string),
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
 * work), an upstream per child at the child's own URL with the child's retry limits (k_j^p, as
 * the analysis), the classes' retry delays, and no limit on connections.
 */
export function sidecarConfig(
  network: NetworkSpec,
  caller: string,
  targets: readonly string[],
  urlOf: ReadonlyMap<string, string>,
  header = 'x-priority',
): SidecarConfigInput {
  return {
    service: caller,
    header,
    classes: network.classes.map((c) => ({
      name: c.name,
      retries: c.retries,
      ...(c.backoff !== undefined && { backoff: c.backoff }),
    })),
    ...(network.backoff !== undefined && { backoff: network.backoff }),
    outbound: {
      listen: '127.0.0.1:0',
      upstreams: targets.map((name) => {
        const retries = network.services.find((s) => s.name === name)?.retries;
        return {
          name,
          url: urlOf.get(name) as string,
          ...(retries !== undefined && { retries: { ...retries } }),
        };
      }),
    },
    shutdownGraceMs: 0,
  };
}
