import { type Server, ServerCredentials } from '@grpc/grpc-js';

/**
 * Binds a gRPC server, insecure, on `host:port` (port 0: a free one).
 * @returns the port it got.
 */
export function bindGrpcServer(server: Server, host = '127.0.0.1', port = 0): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
}
