import { create, type DescMessage, fromBinary, type Message, toBinary } from '@bufbuild/protobuf';
import { anyPack } from '@bufbuild/protobuf/wkt';
import { Server, type ServerDuplexStream, type ServiceDefinition, status } from '@grpc/grpc-js';
import type { NetworkSpec } from '../config/schema.js';
import { meshPlan } from '../deploy/meshPlan.js';
import {
  type AdsRequest,
  type AdsRequestKind,
  type AdsResponse,
  AdsSession,
  type AdsSnapshot,
} from './AdsSession.js';
import { bindGrpcServer } from './bindGrpcServer.js';
import { envoyMessage, parseEnvoy } from './envoyApi.js';
import { NackLog, type NackRepeats } from './NackLog.js';
import { type XdsLimits, xdsLimits } from './XdsLimits.js';
import { XDS_MESSAGES, type XdsEndpoint, type XdsTypeUrl, xdsResources } from './xdsResources.js';

/** Options of {@link createXdsServer}. */
export interface XdsServerOptions {
  /** The network whose policies the control plane serves. */
  readonly network: NetworkSpec;
  /** Each service's endpoints, by its name in the network. */
  readonly endpoints: Readonly<Record<string, readonly XdsEndpoint[]>>;
  /**
   * Where to listen.
   * @default '127.0.0.1'
   */
  readonly host?: string;
  /**
   * The port; 0 asks the system for a free one.
   * @default 0
   */
  readonly port?: number;
  /**
   * Told of every request a client sends (ACKs, NACKs, subscriptions), for logs and tests. The
   * strings in an event are the client's, unescaped: pass them through `printable` before they
   * reach a log (the CLI does, src/cli/xdsServe.ts).
   */
  readonly onRequest?: (event: XdsRequestEvent) => void;
  /**
   * Bounds on streams, request sizes, subscriptions and NACK logging; each one given replaces its
   * default ({@link XdsLimits}, docs/xds.md "Limits and logs").
   * @default DEFAULT_XDS_LIMITS
   */
  readonly limits?: Readonly<Partial<XdsLimits>>;
  /**
   * The time now, ms since the epoch, for the NACK log's intervals and counts.
   * @default Date.now
   */
  readonly clock?: () => number;
}

/** One DiscoveryRequest, as the server saw it. */
export interface XdsRequestEvent {
  /** The client's node id ('' if it gave none). */
  readonly node: string;
  /**
   * What the request was (AdsSession's kinds: `unknown` for a type not served, which is ignored;
   * `refused` for one over a limit, which ends the stream), or `closed`: not a request, the end
   * of a stream that still had NACKs counted and not logged (`unlogged`).
   */
  readonly kind: AdsRequestKind | 'closed';
  /** The type asked for ('' for `closed`). */
  readonly typeUrl: string;
  /** The names asked for (none for `refused` and `closed`). */
  readonly resourceNames: readonly string[];
  /** The version the request accepts (ACK) or still holds (NACK). */
  readonly versionInfo: string;
  /** A NACK's reason, from the client; for `refused`, why the server refused the request. */
  readonly error?: string;
  /**
   * On a NACK: whether it is worth a log line (false: a repeat, only counted; see NackLog).
   * A logger should write a line for a NACK only when this is not false.
   */
  readonly logged?: boolean;
  /**
   * NACKs of this stream counted and not logged, to report now: on a logged NACK (its type's
   * earlier repeats) and on `closed`.
   */
  readonly unlogged?: readonly NackRepeats[];
}

/** A running control plane. */
export interface XdsServer {
  /** The port it listens on. */
  readonly port: number;
  /** The version of the resources it serves now (`1`, then one more per update). */
  readonly version: string;
  /**
   * Serves a new network (and endpoints, if given) to every client, as the next version. The
   * network is checked and every resource encoded first: on any problem this throws and the
   * last good version stays served.
   */
  update(network: NetworkSpec, endpoints?: Readonly<Record<string, readonly XdsEndpoint[]>>): void;
  /** Stops accepting streams, ends the open ones, and resolves when the server is down. */
  close(): Promise<void>;
}

type AnyMessage = Message;

const ADS_PATH = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';

/**
 * The DiffTry xDS control plane: an Aggregated Discovery Service (xDS v3, state of the world,
 * over gRPC) serving, for every service of a network, the Listener, RouteConfiguration, Cluster
 * and ClusterLoadAssignment of {@link xdsResources} — the Envoy generator's per-class routes and
 * retry policies — to Envoy and to proxyless gRPC clients (`xds:///NAME`). Every client gets the
 * same resources; {@link XdsServer.update} pushes a new version to all of them.
 * @example
 * ```ts
 * const server = await createXdsServer({
 *   network: await loadNetworkFile('net.yaml'),
 *   endpoints: { geo: [{ host: '127.0.0.1', port: 50051 }] },
 * });
 * // clients: GRPC_XDS_BOOTSTRAP pointing at 127.0.0.1:${server.port}, target xds:///geo
 * ```
 */
export async function createXdsServer(options: XdsServerOptions): Promise<XdsServer> {
  const limits = xdsLimits(options.limits);
  const clock = options.clock ?? Date.now;
  const servedTypes = Object.keys(XDS_MESSAGES);
  const requestSchema = envoyMessage('envoy.service.discovery.v3.DiscoveryRequest');
  const responseSchema = envoyMessage('envoy.service.discovery.v3.DiscoveryResponse');
  let version = 1;
  let endpoints = options.endpoints;
  let snapshot = encodeSnapshot(options.network, endpoints, String(version));
  const sessions = new Set<(next: AdsSnapshot<AnyMessage>) => void>();
  const streams = new Set<ServerDuplexStream<Message, Message>>();

  const definition: ServiceDefinition = {
    StreamAggregatedResources: {
      path: ADS_PATH,
      requestStream: true,
      responseStream: true,
      requestSerialize: (message: Message) => Buffer.from(toBinary(requestSchema, message)),
      requestDeserialize: (bytes: Buffer) => fromBinary(requestSchema, bytes),
      responseSerialize: (message: Message) => Buffer.from(toBinary(responseSchema, message)),
      responseDeserialize: (bytes: Buffer) => fromBinary(responseSchema, bytes),
    },
  };

  const handle = (call: ServerDuplexStream<Message, Message>) => {
    if (streams.size >= limits.maxStreams) {
      refuse(call, `the control plane serves at most ${limits.maxStreams} streams at once`);
      return;
    }
    streams.add(call);
    const session = new AdsSession<AnyMessage>(snapshot, {
      servedTypes,
      maxResourceNames: limits.maxResourceNames,
    });
    const nackLog = new NackLog({
      now: clock,
      intervalMs: limits.nackLogIntervalMs,
      linesPerInterval: limits.nackLinesPerInterval,
    });
    let node = '';
    let ended = false;
    const send = (responses: readonly AdsResponse<AnyMessage>[]) => {
      for (const response of responses) {
        call.write(
          create(responseSchema, {
            versionInfo: response.versionInfo,
            typeUrl: response.typeUrl,
            nonce: response.nonce,
            resources: [...response.resources],
          } as never),
        );
      }
    };
    const push = (next: AdsSnapshot<AnyMessage>) => send(session.onSnapshot(next));
    sessions.add(push);
    const end = () => {
      if (ended) return;
      ended = true;
      sessions.delete(push);
      streams.delete(call);
      const unlogged = nackLog.onEnd();
      if (unlogged.length > 0) {
        options.onRequest?.({
          node,
          kind: 'closed',
          typeUrl: '',
          resourceNames: [],
          versionInfo: '',
          unlogged,
        });
      }
    };
    call.on('data', (message: Message) => {
      if (ended) return;
      const request = message as unknown as DiscoveryRequestFields;
      if (request.node?.id) node = request.node.id;
      const ads: AdsRequest = {
        typeUrl: request.typeUrl,
        versionInfo: request.versionInfo,
        resourceNames: request.resourceNames,
        responseNonce: request.responseNonce,
        ...(request.errorDetail !== undefined && {
          errorDetail: { code: request.errorDetail.code, message: request.errorDetail.message },
        }),
      };
      const decision = session.onRequest(ads);
      if (decision.kind === 'refused') {
        const reason = decision.reason ?? 'over a limit';
        options.onRequest?.({
          node,
          kind: 'refused',
          typeUrl: ads.typeUrl,
          resourceNames: [],
          versionInfo: ads.versionInfo,
          error: reason,
        });
        end();
        refuse(call, reason);
        return;
      }
      const nack =
        decision.kind === 'nack' && ads.errorDetail !== undefined
          ? nackLog.onNack(ads.typeUrl, ads.errorDetail.message)
          : undefined;
      options.onRequest?.({
        node,
        kind: decision.kind,
        typeUrl: ads.typeUrl,
        resourceNames: [...ads.resourceNames],
        versionInfo: ads.versionInfo,
        ...(ads.errorDetail !== undefined && { error: ads.errorDetail.message }),
        ...(nack !== undefined && { logged: nack.log }),
        ...(nack?.log === true && nack.repeats !== undefined && { unlogged: [nack.repeats] }),
      });
      send(decision.responses);
    });
    call.on('end', () => {
      end();
      call.end();
    });
    call.on('error', end);
    call.on('cancelled', end);
  };

  const server = new Server({
    'grpc.max_concurrent_streams': limits.maxConcurrentStreams,
    'grpc.max_receive_message_length': limits.maxRequestBytes,
  });
  server.addService(definition, { StreamAggregatedResources: handle });
  const port = await bindGrpcServer(server, options.host, options.port);

  return {
    port,
    get version() {
      return String(version);
    },
    update(network, nextEndpoints) {
      const next = encodeSnapshot(network, nextEndpoints ?? endpoints, String(version + 1));
      version += 1;
      endpoints = nextEndpoints ?? endpoints;
      snapshot = next;
      for (const push of sessions) push(next);
    },
    close() {
      return new Promise<void>((resolve) => {
        // Open streams would hold a graceful shutdown: end them, then give it a second.
        for (const call of streams) call.end();
        server.tryShutdown(() => resolve());
        setTimeout(() => server.forceShutdown(), 1000).unref();
      });
    },
  };

  /** Every resource of a network, checked strictly against Envoy's protos and packed as Any. */
  function encodeSnapshot(
    network: NetworkSpec,
    byService: Readonly<Record<string, readonly XdsEndpoint[]>>,
    versionInfo: string,
  ): AdsSnapshot<AnyMessage> {
    const resources = new Map<string, Map<string, AnyMessage>>();
    for (const [typeUrl, named] of xdsResources(meshPlan(network), byService)) {
      const typeName = XDS_MESSAGES[typeUrl as XdsTypeUrl];
      const schema: DescMessage = envoyMessage(typeName);
      const packed = new Map<string, AnyMessage>();
      for (const [name, json] of named) {
        packed.set(name, anyPack(schema, parseEnvoy(typeName, json)) as unknown as AnyMessage);
      }
      resources.set(typeUrl, packed);
    }
    return { version: versionInfo, resources };
  }
}

/** Ends a stream at once with RESOURCE_EXHAUSTED and `details` (grpc-js sends the status). */
function refuse(call: ServerDuplexStream<Message, Message>, details: string): void {
  call.emit(
    'error',
    Object.assign(new Error(details), { code: status.RESOURCE_EXHAUSTED, details }),
  );
}

/** The DiscoveryRequest fields the server reads (camelCase, as @bufbuild/protobuf gives them). */
interface DiscoveryRequestFields {
  readonly versionInfo: string;
  readonly node?: { readonly id: string };
  readonly resourceNames: string[];
  readonly typeUrl: string;
  readonly responseNonce: string;
  readonly errorDetail?: { readonly code: number; readonly message: string };
}
