import {
  type Metadata,
  Server,
  type ServerUnaryCall,
  type ServiceDefinition,
  type sendUnaryData,
  status,
} from '@grpc/grpc-js';
import { bindGrpcServer } from '../../xds/bindGrpcServer.js';
import { EXTERNAL_HEADER } from './Downstream.js';
import {
  branchOfPath,
  type StationOutcome,
  serviceStation,
  stationService,
  type TestbedService,
  type TestbedServiceOptions,
} from './serviceStation.js';

/** The one method every gRPC testbed service serves (unary; the payload is the request's path). */
export const TESTBED_GRPC_METHOD = '/difftry.testbed.Service/Call';

const identity = (bytes: Buffer): Buffer => bytes;

/**
 * The gRPC testbed service's definition, for servers and generic clients alike: one unary method
 * whose request is the UTF-8 path of the call (`/search`: the endpoint, as over HTTP) and whose
 * answer is `ok`. Raw bytes both ways (no protobuf: nothing else travels).
 */
export const TESTBED_GRPC_SERVICE: ServiceDefinition = Object.freeze({
  Call: {
    path: TESTBED_GRPC_METHOD,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
});

/** A running gRPC testbed service. */
export interface GrpcTestbedService extends TestbedService {
  /** The port it listens on, on 127.0.0.1 (its xDS endpoint). */
  readonly port: number;
}

/** The gRPC status of each outcome and its details. */
const ANSWERS: Readonly<Record<Exclude<StationOutcome, 'ok'>, readonly [status, string]>> = {
  // Admission: the station is full, the work was never started.
  rejected: [status.RESOURCE_EXHAUSTED, 'admission'],
  // The work was done, a child's call failed after its hop's retries: the caller may retry.
  failed: [status.UNAVAILABLE, 'call failed'],
};

const OK = Buffer.from('ok');

/** The first string value of a metadata key (undefined when absent). */
function firstValue(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.toString('utf8');
}

/**
 * One testbed service over gRPC: a `@grpc/grpc-js` server on 127.0.0.1 (port 0) serving
 * {@link TESTBED_GRPC_METHOD} in front of the same station as the HTTP service
 * ({@link serviceStation}: admission with c = 1 and m = `queue` around the service's own work, a
 * timer of mean 1/μ, then the calls to its children through its {@link Downstream}). The class
 * comes from the metadata key `x-priority` (any case; missing or unknown: the lowest class), the
 * external marker from `x-testbed-external`, the endpoint from the payload. Answers:
 * RESOURCE_EXHAUSTED when admission turns the attempt away, UNAVAILABLE when a call to a child
 * failed, OK otherwise — the first two are the codes an xDS route's `retry_on` names, so the
 * caller's gRPC channel retries them. A waiting attempt whose call is cancelled gives its place
 * back. No retry code here: the station calls its children through the downstream it is given.
 * @example
 * ```ts
 * const geo = await startGrpcService({ name: 'geo', capacity: 50, queue: 50,
 *   classes: ['high', 'low'], program: { steps: [], branches: [] }, random: seededRandom(1) });
 * // xDS endpoint of geo: 127.0.0.1:${geo.port}
 * ```
 */
export async function startGrpcService(
  options: Readonly<TestbedServiceOptions>,
): Promise<GrpcTestbedService> {
  const station = serviceStation(options);
  const header = (options.header ?? 'x-priority').toLowerCase();

  const handle = (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
    const path = Buffer.isBuffer(call.request) ? call.request.toString('utf8') : '/';
    const ticket = station.offer(
      {
        className: firstValue(call.metadata, header),
        branch: branchOfPath(path),
        external: call.metadata.get(EXTERNAL_HEADER).length > 0,
      },
      (outcome) => {
        if (outcome === 'ok') {
          callback(null, OK);
          return;
        }
        const [code, details] = ANSWERS[outcome];
        callback({ code, details });
      },
    );
    // Waiting: if the caller goes away first (cancelled, deadline), give its place back.
    if (ticket.waiting) call.once('cancelled', () => ticket.cancel());
  };

  const server = new Server();
  server.addService(TESTBED_GRPC_SERVICE, { Call: handle });
  const port = await bindGrpcServer(server);

  return {
    ...stationService(station, `grpc://127.0.0.1:${port}`, () => {
      // Calls in flight are cancelled; the port is released at once.
      server.forceShutdown();
      return Promise.resolve();
    }),
    port,
  };
}
