import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { SidecarConfigInput } from '../../config/sidecarSchema.js';
import { startSidecar } from '../../mesh/index.js';
import type { BackoffDescription } from '../../model/backoff/BackoffDescription.js';
import { seededRandom } from '../../model/random.js';
import { TestbedTracing } from '../trace/TestbedTracing.js';
import type { Downstream } from './Downstream.js';
import { type DirectTarget, directDownstream } from './directDownstream.js';
import { listenOnLoopback } from './listenOnLoopback.js';

/**
 * The external client's retries, as plain data (so a client can be built in another thread): the
 * entry services with their retry limits, the classes' retry delays, the class header, and the
 * random stream of the delays. The analysis's external client makes at most k_entry^p + 1
 * attempts of a request at its entry service.
 */
export interface ExternalClientPlan {
  readonly targets: Readonly<Record<string, DirectTarget>>;
  readonly classes: readonly { readonly name: string; readonly backoff: BackoffDescription }[];
  readonly header: string;
  readonly seed: number;
  readonly stream: number;
  /**
   * On the gRPC testbed: the xDS control plane (`host:port`) and the node id the client gives
   * it. The entries are then called over `xds:///ENTRY` channels and gRPC makes the retries, as
   * the routes say (the same limits as `targets`', at most 5 attempts); absent, over HTTP with
   * the runtime's `retry()`.
   */
  readonly xds?: { readonly server: string; readonly node: string };
  /** Trace the client's attempts into this OTLP/JSON-lines file, as service `load` (HTTP only). */
  readonly traces?: string;
}

/**
 * The external client a plan describes, as a {@link Downstream} to the entry services: over HTTP,
 * a {@link directDownstream} retrying with the plan's limits and delays; with `plan.xds`, a
 * `grpcXdsDownstream` whose channels are ready (gRPC retries from the xDS routes). The gRPC
 * modules (optional peers) are loaded only then.
 */
export async function externalClientDownstream(plan: ExternalClientPlan): Promise<Downstream> {
  if (plan.xds !== undefined) {
    const { grpcXdsDownstream } = await import('./grpcXdsDownstream.js');
    const downstream = grpcXdsDownstream({
      xdsServer: plan.xds.server,
      node: plan.xds.node,
      children: Object.keys(plan.targets),
      header: plan.header,
    });
    try {
      await downstream.ready();
    } catch (error) {
      await downstream.close();
      throw error;
    }
    return downstream;
  }
  if (plan.traces === undefined) {
    return directDownstream({
      targets: plan.targets,
      classes: plan.classes,
      header: plan.header,
      random: seededRandom(plan.seed, plan.stream),
    });
  }
  // Traced: the client's attempts are root spans of service `load`, in a file of their own (the
  // client may run in a worker thread, beside the services' file).
  const tracing = TestbedTracing.open(plan.traces);
  const downstream = directDownstream({
    targets: plan.targets,
    classes: plan.classes,
    header: plan.header,
    random: seededRandom(plan.seed, plan.stream),
    tracing: await tracing.of('load'),
  });
  return {
    call: (child, className, options) => downstream.call(child, className, options),
    async close() {
      await downstream.close();
      await tracing.close();
    },
  };
}

/**
 * How to start a testbed's ingress: an outbound-only DiffTry sidecar whose upstreams are the
 * entry services, or, without sidecars, a small server calling them as the
 * {@link ExternalClientPlan} says (retrying in-process, or over gRPC with xDS retries).
 */
export type IngressPlan =
  | {
      readonly kind: 'sidecar';
      readonly config: SidecarConfigInput;
      readonly seed: number;
      readonly stream: number;
    }
  | ({ readonly kind: 'direct' } & ExternalClientPlan);

/** A running ingress. */
export interface Ingress {
  /** `http://127.0.0.1:PORT`; requests go to `{url}/{SERVICE}/{endpoint}`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts the ingress a plan describes, listening on 127.0.0.1, port 0: `GET /SERVICE/REST` with
 * the class header is sent to the entry service's `/REST` (over HTTP, or on the gRPC testbed as
 * a gRPC call with the class as metadata), retried under DiffTry, and answered 200 or 503.
 */
export async function startIngress(plan: IngressPlan): Promise<Ingress> {
  if (plan.kind === 'sidecar') {
    const random = seededRandom(plan.seed, plan.stream);
    const sidecar = await startSidecar(plan.config, { random, source: 'ingress sidecar' });
    return { url: sidecar.outboundUrl as string, close: () => sidecar.close({ graceMs: 0 }) };
  }
  const downstream = await externalClientDownstream(plan);
  try {
    const server = await startRetryingServer(
      downstream,
      plan.classes.map((c) => c.name),
      plan.header,
    );
    return {
      url: server.url,
      close: async () => {
        await server.close();
        await downstream.close();
      },
    };
  } catch (error) {
    await downstream.close();
    throw error;
  }
}

/** The ingress without sidecars: a `node:http` server making each call through `downstream`. */
async function startRetryingServer(
  downstream: Downstream,
  classes: readonly string[],
  classHeader: string,
): Promise<Ingress> {
  const header = classHeader.toLowerCase();
  const known = new Map(classes.map((c) => [c.toLowerCase(), c]));
  const lowest = classes[classes.length - 1] as string;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const raw = req.headers[header];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim().toLowerCase();
    const className = (value === undefined ? undefined : known.get(value)) ?? lowest;
    const match = /^\/([^/?]+)(\/[^?]*)?/.exec(req.url ?? '/');
    if (match === null) {
      res.writeHead(404).end();
      return;
    }
    const service = decodeURIComponent(match[1] as string);
    downstream
      .call(service, className, { path: match[2] ?? '/', external: true })
      .then(
        (ok) => (ok ? 200 : 503),
        () => 404,
      )
      .then((status) => {
        if (!res.writableEnded && !res.destroyed) res.writeHead(status).end();
      });
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
