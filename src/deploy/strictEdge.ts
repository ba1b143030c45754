import { DEFAULT_SIDECAR_LIMITS, type SidecarLimits } from '../config/sidecarSchema.js';
import { protoDuration } from './durations.js';

/** The limits of the sidecar's listeners that an Envoy edge can be given (see docs/mesh.md). */
export type StrictEdgeLimits = Pick<
  SidecarLimits,
  'maxHeaderBytes' | 'maxHeaders' | 'headersTimeoutMs' | 'requestTimeoutMs'
>;

/**
 * The fields of Envoy's `HttpConnectionManager` that make an edge refuse what difftry's own
 * sidecar edge refuses, as far as Envoy's API can say it (the Envoy generator's inbound listener
 * at the edge, and Istio's EnvoyFilter on the edge's sidecar):
 * - `normalize_path` and `merge_slashes`: edge rules see the path the application is given
 *   (`/x/../premium` and `//premium` are `/premium`), as the sidecar's normaliser makes it;
 * - `path_with_escaped_slashes_action: REJECT_REQUEST`: 400 for `%2F`, `%5C` (any case) in the
 *   path, which the sidecar refuses too, so `/premium/..%2Fadmin` can never be classed as under
 *   `/premium` and then read as `/admin`;
 * - `common_http_protocol_options.headers_with_underscores_action: DROP_HEADER`: the sidecar
 *   drops the names an application might read as the class header (`x_priority`, see
 *   `classHeaderVariant`) and serves the request; Envoy cannot single those out, so it drops
 *   every header with `_` in its name. The spoof gets the same answer (served, at the edge's
 *   class); `REJECT_REQUEST` would refuse requests the sidecar serves (and over HTTP/2 only
 *   reset the stream);
 * - `max_request_headers_kb` and `common_http_protocol_options.max_headers_count`: 431 above
 *   the sidecar's `maxHeaderBytes` (rounded up to whole KiB: Envoy counts kibibytes) and
 *   `maxHeaders`;
 * - `request_headers_timeout` and `request_timeout`: 408 for a client that trickles its head
 *   (`headersTimeoutMs`) or its whole request (`requestTimeoutMs`).
 *
 * Not expressible: two `Host` lines (no Envoy field refuses them, and `Http1ProtocolOptions` has
 * none either), the declared body limit (`maxBodyBytes`: no field of the connection manager; the
 * buffer filter would hold whole bodies), path look-alikes (`／`, `∕`), invalid UTF-8 escapes
 * and `..;` segments.
 * @param limits the sidecar's limits; {@link DEFAULT_SIDECAR_LIMITS} by default, which a network
 *   file's generated sidecars also use.
 * @see https://www.envoyproxy.io/docs/envoy/latest/configuration/best_practices/edge
 * @example
 * ```ts
 * strictEdgeConnectionManager().path_with_escaped_slashes_action; // 'REJECT_REQUEST'
 * ```
 */
export function strictEdgeConnectionManager(
  limits: Readonly<StrictEdgeLimits> = DEFAULT_SIDECAR_LIMITS,
): Record<string, unknown> {
  return {
    normalize_path: true,
    merge_slashes: true,
    path_with_escaped_slashes_action: 'REJECT_REQUEST',
    max_request_headers_kb: Math.ceil(limits.maxHeaderBytes / 1024),
    request_headers_timeout: protoDuration(limits.headersTimeoutMs),
    request_timeout: protoDuration(limits.requestTimeoutMs),
    common_http_protocol_options: {
      headers_with_underscores_action: 'DROP_HEADER',
      max_headers_count: limits.maxHeaders,
    },
  };
}
