import {
  type Client,
  type ClientUnaryCall,
  credentials,
  Metadata,
  makeGenericClientConstructor,
  status,
} from '@grpc/grpc-js';
import { register } from '@grpc/grpc-js-xds';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { xdsBootstrap } from '../../xds/xdsBootstrap.js';
import { type Downstream, type DownstreamCallOptions, EXTERNAL_HEADER } from './Downstream.js';
import { TESTBED_GRPC_METHOD, TESTBED_GRPC_SERVICE } from './startGrpcService.js';

/** Options of {@link grpcXdsDownstream}. */
export interface GrpcXdsDownstreamOptions {
  /** The control plane, `host:port` (the testbed's `createXdsServer`). */
  readonly xdsServer: string;
  /** The services this caller calls, by name: one `xds:///NAME` channel each. */
  readonly children: readonly string[];
  /** The node id the channels give the control plane (its logs name them by it). */
  readonly node?: string;
  /** The class metadata key; default `x-priority` (the key the xDS routes match). */
  readonly header?: string;
  /**
   * Longest time one call may take, all of gRPC's attempts and their delays included, ms; default
   * {@link GRPC_CALL_DEADLINE_MS}. A call past it fails (DEADLINE_EXCEEDED, not retried).
   */
  readonly deadlineMs?: number;
  /** Wall clock, ms since the epoch (gRPC deadlines are dates); default `Date.now`. */
  readonly now?: () => number;
}

/** A {@link Downstream} over proxyless gRPC: its channels can be waited for. */
export interface GrpcXdsDownstream extends Downstream {
  /**
   * Resolves when every channel has its xDS configuration and a connection to its child (READY),
   * so the first calls do not pay for it.
   * @throws Error naming the child whose channel was not ready within `timeoutMs` (default 10 s).
   */
  ready(timeoutMs?: number): Promise<void>;
}

/**
 * Default deadline of one call: 60 s, far above what the longest retried call takes here (five
 * attempts with delays of at most about a second each, at every level of the call graph) yet a
 * bound, so a call never hangs a run.
 */
export const GRPC_CALL_DEADLINE_MS = 60_000;

/** The channel option that gives one channel its own xDS bootstrap (grpc-js-xds's tests use it). */
const BOOTSTRAP_OPTION = 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config';

const identity = (bytes: Buffer): Buffer => bytes;

const TestbedClient = makeGenericClientConstructor(TESTBED_GRPC_SERVICE, 'TestbedService');

let xdsRegistered = false;

/**
 * The {@link Downstream} of a service on the gRPC testbed: one `xds:///CHILD` channel per child
 * (`@grpc/grpc-js-xds`, bootstrapped at the testbed's control plane with this caller's node id),
 * and per call **one** unary gRPC call carrying the class as metadata (`x-priority`), the
 * external marker when asked, and the endpoint's path as payload. gRPC itself retries it, as
 * the route the control plane serves for that class says (k of the child, RESOURCE_EXHAUSTED and
 * UNAVAILABLE retried, the class's backoff; at most 5 attempts); no difftry code decides a retry.
 * The call succeeded iff its final status is OK.
 * @example
 * ```ts
 * const downstream = grpcXdsDownstream({ xdsServer: `127.0.0.1:${xds.port}`, children: ['geo'] });
 * await downstream.ready();
 * await downstream.call('geo', 'high'); // gRPC makes at most k_geo^high + 1 attempts
 * ```
 */
export function grpcXdsDownstream(options: Readonly<GrpcXdsDownstreamOptions>): GrpcXdsDownstream {
  const deadlineMs = options.deadlineMs ?? GRPC_CALL_DEADLINE_MS;
  if (!(Number.isFinite(deadlineMs) && deadlineMs > 0)) {
    throw new InvalidArgumentError(
      `deadlineMs should be a positive number of ms, got ${deadlineMs}`,
    );
  }
  const header = (options.header ?? 'x-priority').toLowerCase();
  const now = options.now ?? Date.now;
  if (!xdsRegistered) {
    // The xds: resolver and the xDS load-balancing policies, registered with grpc-js once.
    register();
    xdsRegistered = true;
  }
  const bootstrap = JSON.stringify(
    xdsBootstrap({ server: options.xdsServer, node: options.node ?? 'difftry-testbed' }),
  );
  const clients = new Map<string, Client>(
    options.children.map((child) => [
      child,
      new TestbedClient(`xds:///${child}`, credentials.createInsecure(), {
        [BOOTSTRAP_OPTION]: bootstrap,
      }),
    ]),
  );
  const inFlight = new Set<ClientUnaryCall>();
  let closed = false;

  return {
    call(child: string, className: string, callOptions: DownstreamCallOptions = {}) {
      const client = clients.get(child);
      if (client === undefined) {
        return Promise.reject(new RangeError(`no downstream service named "${child}"`));
      }
      if (closed) return Promise.resolve(false);
      const metadata = new Metadata();
      metadata.set(header, className);
      if (callOptions.external) metadata.set(EXTERNAL_HEADER, '1');
      return new Promise<boolean>((resolve) => {
        const call = client.makeUnaryRequest(
          TESTBED_GRPC_METHOD,
          identity,
          identity,
          Buffer.from(callOptions.path ?? '/', 'utf8'),
          metadata,
          { deadline: now() + deadlineMs },
          (error) => {
            inFlight.delete(call);
            resolve(error === null || error?.code === status.OK);
          },
        );
        inFlight.add(call);
      });
    },
    async ready(timeoutMs = 10_000) {
      const deadline = now() + timeoutMs;
      await Promise.all(
        [...clients].map(
          ([child, client]) =>
            new Promise<void>((resolve, reject) =>
              client.waitForReady(deadline, (error) =>
                error
                  ? reject(
                      new Error(
                        `the gRPC channel to xds:///${child} was not ready within ${timeoutMs} ms: ${error.message}`,
                      ),
                    )
                  : resolve(),
              ),
            ),
        ),
      );
    },
    async close() {
      closed = true;
      // Calls in flight end CANCELLED (a failed call); then the channels and their ADS streams.
      for (const call of inFlight) call.cancel();
      inFlight.clear();
      for (const client of clients.values()) client.close();
    },
  };
}
