import { setMaxListeners } from 'node:events';
import type { Context } from '@opentelemetry/api';
import { Agent } from 'undici';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { SidecarTracing } from '../../mesh/sidecarTracing.js';
import type { BackoffDescription } from '../../model/backoff/BackoffDescription.js';
import type { RandomSource } from '../../model/random.js';
import type { AttemptOutcome } from '../../policy/retry/AttemptOutcome.js';
import type { RetryPolicy } from '../../policy/retry/RetryPolicy.js';
import { retryPolicy } from '../../policy/retry/RetryPolicy.js';
import { retry } from '../../runtime/retry.js';
import { httpAttempt, traceHeaders } from '../../runtime/telemetry/attemptDescriptions.js';
import { type Downstream, type DownstreamCallOptions, EXTERNAL_HEADER } from './Downstream.js';

/** A child a {@link directDownstream} can call. */
export interface DirectTarget {
  /** The child's base URL, `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** k per class name at this hop (the child's limit, as in the analysis). */
  readonly retryLimits: Readonly<Record<string, number>>;
  /** The per-try timeout per class name at this hop, ms (none for a class not named). */
  readonly timeoutsMs?: Readonly<Record<string, number>>;
}

/** Options of {@link directDownstream}. */
export interface DirectDownstreamOptions {
  /** The children, by service name. */
  readonly targets: Readonly<Record<string, DirectTarget>>;
  /** The classes, highest first, each with its retry delay. */
  readonly classes: readonly { readonly name: string; readonly backoff: BackoffDescription }[];
  /** The class header; default `x-priority`. */
  readonly header?: string;
  /** Uniforms for the retry delays (seed it). */
  readonly random: RandomSource;
  /** When tracing: the caller's providers; each attempt is a span, a child of its request's. */
  readonly tracing?: SidecarTracing;
}

const SUCCESS: AttemptOutcome = Object.freeze({ kind: 'success' });

/**
 * The in-process {@link Downstream}: each call runs under the runtime's `retry()` with a DiffTry
 * policy built from the network file (the child's retry limit and per-try timeout per class, the
 * class's backoff),
 * every attempt a real HTTP GET over loopback (undici, keep-alive, no limit on connections, so an
 * attempt never queues behind another in the client). A 200 is a success; 503, 429 and
 * connection errors are retried. The same decisions as the sidecar's, without the extra hop:
 * `difftry testbed … --no-sidecar`.
 * @example
 * ```ts
 * const downstream = directDownstream({
 *   targets: { geo: { url: geo.url, retryLimits: { high: 5, low: 1 } } },
 *   classes: [{ name: 'high', backoff }, { name: 'low', backoff }],
 *   random: seededRandom(3),
 * });
 * await downstream.call('geo', 'high'); // true after at most 6 attempts
 * ```
 */
export function directDownstream(options: Readonly<DirectDownstreamOptions>): Downstream {
  const header = (options.header ?? 'x-priority').toLowerCase();
  const agent = new Agent({ connections: null, pipelining: 1 });
  const closing = new AbortController();
  // Every call in flight listens on this one signal (its waits between retries included).
  setMaxListeners(0, closing.signal);
  const policies = new Map<string, { readonly url: URL; readonly policy: RetryPolicy }>();
  for (const [name, target] of Object.entries(options.targets)) {
    const classes = Object.fromEntries(
      options.classes.map((c) => {
        const timeoutMs = target.timeoutsMs?.[c.name];
        return [
          c.name,
          {
            retries: target.retryLimits[c.name] ?? 0,
            backoff: c.backoff,
            ...(timeoutMs !== undefined && { timeoutMs }),
          },
        ];
      }),
    );
    policies.set(name, {
      url: new URL(target.url),
      policy: retryPolicy({ classes, header, random: options.random }),
    });
  }
  return {
    async call(child: string, className: string, callOptions: DownstreamCallOptions = {}) {
      const target = policies.get(child);
      if (target === undefined)
        throw new InvalidArgumentError(`no downstream service named "${child}"`);
      const headers: Record<string, string> = { [header]: className };
      if (callOptions.external) headers[EXTERNAL_HEADER] = '1';
      const path = callOptions.path ?? '/';
      const { tracing } = options;
      const send = () =>
        retry(
          async ({ signal }) => {
            const traced = tracing === undefined ? undefined : traceHeaders();
            const response = await agent.request({
              origin: target.url.origin,
              path,
              method: 'GET',
              headers: traced === undefined ? headers : { ...headers, ...traced },
              signal,
            });
            await response.body.dump();
            return response.statusCode;
          },
          {
            policy: target.policy,
            className,
            method: 'GET',
            signal: closing.signal,
            classify: (code) => (code === 200 ? SUCCESS : { kind: 'status', status: code }),
            telemetry:
              tracing === undefined
                ? false
                : httpAttempt<number>(
                    'GET',
                    new URL(path, target.url),
                    (code) => code,
                    tracing.providers,
                  ),
          },
        );
      try {
        // Traced: the attempts are children of the request making the call (a root without one).
        const status =
          tracing === undefined
            ? await send()
            : await tracing.api.context.with(
                (callOptions.trace as Context | undefined) ?? tracing.api.ROOT_CONTEXT,
                send,
              );
        return status === 200;
      } catch (error) {
        if (closing.signal.aborted) return false;
        // A connection error after the last retry: the call failed.
        if (error instanceof Error) return false;
        throw error;
      }
    },
    async close() {
      closing.abort();
      await agent.destroy();
    },
  };
}
