import {
  type Client,
  credentials,
  Metadata,
  makeGenericClientConstructor,
  Server,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { bindGrpcServer } from '../../src/xds/bindGrpcServer.js';
import { xdsBootstrap } from '../../src/xds/xdsBootstrap.js';

// The gRPC side of the xDS tests: a server that refuses every call and counts the attempts, and
// proxyless clients bootstrapped at a control plane. No difftry code in the call path.

const METHOD = '/difftry.test.Probe/Call';
const IDENTITY = {
  path: METHOD,
  requestStream: false,
  responseStream: false,
  requestSerialize: (b: Buffer) => b,
  requestDeserialize: (b: Buffer) => b,
  responseSerialize: (b: Buffer) => b,
  responseDeserialize: (b: Buffer) => b,
};
const Probe = makeGenericClientConstructor({ Call: IDENTITY }, 'Probe');

/** A server on 127.0.0.1 (port 0) that answers every call with `code`. */
export interface RefusingServer {
  readonly server: Server;
  readonly port: number;
  /** Attempts seen, per call id (the `x-call-id` metadata). */
  readonly attempts: Map<string, number>;
}

/** Starts a gRPC server that answers every call with `code`, counting attempts per call id. */
export async function refusingServer(code: status = status.UNAVAILABLE): Promise<RefusingServer> {
  const attempts = new Map<string, number>();
  const server = new Server();
  server.addService(
    { Call: IDENTITY },
    {
      Call: (
        call: { metadata: Metadata },
        callback: (error: Partial<ServiceError> | null) => void,
      ) => {
        const id = String(call.metadata.get('x-call-id')[0]);
        attempts.set(id, (attempts.get(id) ?? 0) + 1);
        callback({ code, details: 'refused by the test' });
      },
    },
  );
  const port = await bindGrpcServer(server);
  return { server, port, attempts };
}

/** A proxyless client of `xds:///TARGET` with this bootstrap (GRPC_XDS_BOOTSTRAP's JSON). */
export function probeClient(bootstrap: string, target = 'geo'): Client {
  return new Probe(`xds:///${target}`, credentials.createInsecure(), {
    'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': bootstrap,
  });
}

/** A proxyless client of `xds:///TARGET`, bootstrapped at the control plane on `xdsPort`. */
export function xdsClient(xdsPort: number, node: string, target = 'geo'): Client {
  return probeClient(
    JSON.stringify(xdsBootstrap({ server: `127.0.0.1:${xdsPort}`, node })),
    target,
  );
}

let ids = 0;
/** One call with `className` (or none) in x-priority; resolves with the attempts it made. */
export function callOnce(
  client: Client,
  attempts: ReadonlyMap<string, number>,
  className: string | undefined,
): Promise<{ attempts: number; code: number }> {
  const id = `call-${++ids}`;
  const metadata = new Metadata();
  metadata.set('x-call-id', id);
  if (className !== undefined) metadata.set('x-priority', className);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      METHOD,
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.from('x'),
      metadata,
      { deadline: Date.now() + 10_000 },
      (error) => resolve({ attempts: attempts.get(id) ?? 0, code: error?.code ?? status.OK }),
    );
  });
}
