import { InvalidArgumentError } from '../core/InvalidArgumentError.js';

/** Options of {@link xdsBootstrap}. */
export interface XdsBootstrapOptions {
  /** The control plane, `host:port`. */
  readonly server: string;
  /**
   * The client's node id (how the control plane's logs name it).
   * @default 'difftry-client'
   */
  readonly node?: string;
}

/**
 * The bootstrap a gRPC xDS client needs to reach a `difftry xds` control plane (the JSON of
 * `GRPC_XDS_BOOTSTRAP`, or of the channel option gRPC's tests use): one xDS server over an
 * insecure channel, speaking xDS v3, and the client's node id.
 * @example
 * ```ts
 * JSON.stringify(xdsBootstrap({ server: '127.0.0.1:18000', node: 'frontend-1' }));
 * ```
 */
export function xdsBootstrap(options: XdsBootstrapOptions): Record<string, unknown> {
  if (
    !/^[^\s:]+:\d{1,5}$/.test(options.server) &&
    !/^\[[0-9a-fA-F:.]+\]:\d{1,5}$/.test(options.server)
  ) {
    throw new InvalidArgumentError(`server: expected host:port, got "${options.server}"`);
  }
  return {
    xds_servers: [
      {
        server_uri: options.server,
        channel_creds: [{ type: 'insecure' }],
        server_features: ['xds_v3'],
      },
    ],
    node: { id: options.node ?? 'difftry-client', locality: {} },
  };
}
