import type { Context } from '@opentelemetry/api';
import { Agent } from 'undici';
import type { SidecarTracing } from '../../mesh/sidecarTracing.js';
import { type Downstream, type DownstreamCallOptions, EXTERNAL_HEADER } from './Downstream.js';

/** Options of {@link sidecarDownstream}. */
export interface SidecarDownstreamOptions {
  /** The caller's sidecar's outbound listener, `http://127.0.0.1:PORT`. */
  readonly outboundUrl: string;
  /** The class header; default `x-priority`. */
  readonly header?: string;
  /** When tracing: each call carries its request's context (`traceparent`) to the sidecar. */
  readonly tracing?: SidecarTracing;
}

/**
 * The {@link Downstream} of a service deployed with a sidecar: one plain HTTP GET per call to
 * `OUTBOUND/CHILD/PATH` (path-prefix routing) with the class header; the sidecar makes the
 * attempts, retrying at this hop with the DiffTry limits of its config, and relays the last
 * answer. A 200 is a success; anything else (the 503 the sidecar relays after its last attempt,
 * a 502 it makes of a connection error) is a failed call.
 * @example
 * ```ts
 * const downstream = sidecarDownstream({ outboundUrl: sidecar.outboundUrl });
 * await downstream.call('geo', 'high'); // GET {outbound}/geo/ with x-priority: high
 * ```
 */
export function sidecarDownstream(options: Readonly<SidecarDownstreamOptions>): Downstream {
  const header = (options.header ?? 'x-priority').toLowerCase();
  const origin = new URL(options.outboundUrl).origin;
  // No limit on connections: a call never waits in the client for another to finish.
  const agent = new Agent({ connections: null, pipelining: 1 });
  return {
    async call(child: string, className: string, callOptions: DownstreamCallOptions = {}) {
      const headers: Record<string, string> = { [header]: className };
      if (callOptions.external) headers[EXTERNAL_HEADER] = '1';
      const { tracing } = options;
      if (tracing !== undefined && callOptions.trace !== undefined) {
        tracing.api.propagation.inject(callOptions.trace as Context, headers);
      }
      const path = callOptions.path ?? '/';
      try {
        const response = await agent.request({
          origin,
          path: `/${encodeURIComponent(child)}${path.startsWith('/') ? path : `/${path}`}`,
          method: 'GET',
          headers,
        });
        await response.body.dump();
        return response.statusCode === 200;
      } catch (error) {
        // A connection error, or the testbed closing under the call: the call failed.
        if (error instanceof Error) return false;
        throw error;
      }
    },
    async close() {
      await agent.destroy();
    },
  };
}
