import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type Dispatcher, Pool } from 'undici';
import {
  DEFAULT_UPSTREAM_TIMEOUTS,
  type SidecarConfig,
  type UpstreamConfig,
} from '../config/sidecarSchema.js';
import { upstreamHop } from '../config/upstreamHop.js';
import type { RandomSource } from '../model/random.js';
import type { Clock } from '../policy/Clock.js';
import type { ClassOptions } from '../policy/classes/ClassTable.js';
import { type RetryPolicy, retryPolicy } from '../policy/retry/RetryPolicy.js';
import { createTimeoutStrategy } from '../policy/timeouts/createTimeoutStrategy.js';
import type { TimeoutStrategy } from '../policy/timeouts/TimeoutStrategy.js';
import { errorCode } from '../runtime/errors.js';
import type { RetryEvent } from '../runtime/retry.js';
import type { TelemetryProviders } from '../runtime/telemetry/otel.js';
import { difftryInterceptor } from '../runtime/undici.js';
import type { RequestHandler } from './httpListener.js';
import {
  BodyTooLargeError,
  bodyPlan,
  dispatchBody,
  type PreparedBody,
  readBody,
  streamBody,
} from './requestBody.js';
import { isChunkedAlone } from './requestHead.js';
import { ResponseRelay, sendPlain } from './responseRelay.js';
import { inCallerContext } from './serverSpan.js';
import type { OutboundMeters, SidecarMetrics } from './sidecarMetrics.js';
import type { SidecarTracing } from './sidecarTracing.js';
import { upstreamRouter } from './upstreamRouting.js';

/** What the outbound side needs besides its config. */
export interface OutboundOptions {
  readonly config: SidecarConfig & { readonly outbound: NonNullable<SidecarConfig['outbound']> };
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly metrics: SidecarMetrics;
  /** The identity header and this sidecar's value of it, when the mesh has a token. */
  readonly identity?: { readonly header: string; readonly value: string };
  /** Answers `/metrics` and `/healthz` unless an upstream's `Host` matched; false otherwise. */
  readonly serveAdmin?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Where each attempt's span goes (a child of the caller's span), when tracing. */
  readonly tracing?: SidecarTracing;
}

/** The forwarder behind the outbound listener. */
export interface Outbound {
  readonly handle: RequestHandler;
  /** The per-try timeout a call's first attempt would get now (ms), if any. */
  timeoutMs(upstream: string, className: string): number | undefined;
  /** Closes the connection pools (after the listener has drained). */
  close(): Promise<void>;
}

/** One upstream with what serves it: its policy, timeouts, pool and meters. */
interface Upstream {
  readonly name: string;
  readonly url: string;
  readonly prefix: string | undefined;
  readonly hosts: readonly string[] | undefined;
  readonly policy: RetryPolicy;
  readonly timeout: TimeoutStrategy | undefined;
  /** Whether it is a sidecar of the mesh, which gets the identity header (the mesh token). */
  readonly mesh: boolean;
  readonly pool: Pool;
  readonly dispatcher: Dispatcher;
  readonly meters: ReadonlyMap<string, OutboundMeters>;
  readonly describe: (error: Error) => string;
}

/**
 * The outbound forwarder: routes each call of the local application to an upstream (by `Host` or
 * path prefix) and sends it through a keep-alive pool composed with the runtime's own
 * `difftryInterceptor`, so every hop retries exactly as the library does: the class from the
 * header (the local application is trusted), DiffTry's per-class limit, backoff, `Retry-After`,
 * the per-try timeout (fixed or any `TimeoutStrategy`) and the deadline. Bodies up to
 * `replayBodyBytes` are read first and replayed on a retry; longer ones stream through once.
 */
export function createOutbound(options: OutboundOptions): Outbound {
  const { config, clock, random, metrics, identity, serveAdmin, tracing } = options;
  const { limits } = config;
  const classHeader = config.header.toLowerCase();
  const deadlineHeader = limits.deadlineHeader.toLowerCase();
  const bodyLimits = { replayBytes: limits.replayBodyBytes, maxBytes: limits.maxBodyBytes };
  const upstreams = config.outbound.upstreams.map((upstream) =>
    createUpstream(upstream, {
      config,
      clock,
      random,
      metrics,
      deadlineHeader,
      telemetry: tracing?.providers ?? false,
    }),
  );
  const byName = new Map(upstreams.map((upstream) => [upstream.name, upstream]));
  const route = upstreamRouter(upstreams);
  const onAnswer = (status: number) => {
    if (status === 413) metrics.limitRejection('outbound', 'body_bytes');
  };

  // One function per listener, not two closures per call: the request path makes no more
  // objects than the call itself needs.
  const send = (call: Call, body: PreparedBody | undefined): void => {
    // Traced: the attempts are children of the span the application's request carries.
    if (tracing === undefined) dispatchCall(call, body);
    else inCallerContext(tracing, call.headers, () => dispatchCall(call, body));
  };

  const handle: RequestHandler = (req, res, head) => {
    const target = req.url ?? '/';
    // A body in another transfer coding than chunked alone would go on without its coding.
    if (head.chunked && !isChunkedAlone(req.headers['transfer-encoding'])) {
      sendPlain(res, 501, 'difftry: only the chunked transfer coding is supported', {
        connection: 'close',
      });
      return;
    }
    const found = route(head.host, target);
    // The sidecar's own endpoints come after Host routing and before path prefixes.
    if (found === undefined || found.by === 'prefix') {
      if (serveAdmin?.(req, res)) return;
    }
    if (found === undefined) {
      sendPlain(
        res,
        404,
        `difftry: no upstream for host ${JSON.stringify(head.host ?? '')} and path ${JSON.stringify(target)}`,
      );
      return;
    }
    const upstream = found.upstream;
    const className = upstream.policy.classify(head.classValue);
    const meters = upstream.meters.get(className) as OutboundMeters;
    meters.request();
    const started = performance.now();
    const headers = head.headers;
    headers[classHeader] = className;
    if (identity !== undefined && upstream.mesh) headers[identity.header] = identity.value;
    // The caller's remaining time goes on to the interceptor, which ends the call by it (or by the
    // upstream's own deadline, if sooner) and sends each attempt with the time left.
    if (head.deadlineValue !== undefined) headers[deadlineHeader] = head.deadlineValue;
    const relay = new ResponseRelay(res, upstream.describe, onAnswer);
    res.once('close', () => {
      // A response the relay cut ended too: leaving it out would hide the failures' durations.
      if (res.writableFinished || relay.cut) meters.latency((performance.now() - started) / 1000);
      else relay.abort(new Error('difftry: the caller went away'));
    });
    const call: Call = {
      dispatcher: upstream.dispatcher,
      path: found.path,
      method: req.method as Dispatcher.HttpMethod,
      headers,
      relay,
    };
    switch (bodyPlan(head.contentLength, head.chunked, bodyLimits)) {
      case 'none':
        send(call, undefined);
        return;
      case 'stream':
        send(call, streamBody(req, limits.maxBodyBytes));
        return;
      case 'too-large':
        // The listener refuses a declared length over the limit before this; kept for safety.
        sendPlain(res, 413, `difftry: request body over ${limits.maxBodyBytes} bytes`, {
          connection: 'close',
        });
        return;
      case 'buffer':
        readBody(req, bodyLimits).then(
          (body) => send(call, body),
          (error: unknown) => {
            if (error instanceof BodyTooLargeError) {
              metrics.limitRejection('outbound', 'body_bytes');
              sendPlain(res, 413, `difftry: ${error.message}`, { connection: 'close' });
            } else res.destroy(); // the caller went away mid-body
          },
        );
        return;
    }
  };

  return {
    handle,
    timeoutMs(name, className) {
      const upstream = byName.get(name);
      if (upstream === undefined) return undefined;
      const { timeout } = upstream;
      if (timeout === undefined) return upstream.policy.timeoutMs(className);
      // Adaptive strategies show their sequence without moving it; `next(0)` could.
      const inspectable = timeout as Partial<{ sequence(): readonly number[] }>;
      return typeof inspectable.sequence === 'function'
        ? inspectable.sequence()[0]
        : timeout.next(0);
    },
    async close() {
      await Promise.all(upstreams.map((upstream) => upstream.pool.destroy()));
    },
  };
}

/** One call to send upstream: where, what, and the relay its answer goes to. */
interface Call {
  readonly dispatcher: Dispatcher;
  readonly path: string;
  readonly method: Dispatcher.HttpMethod;
  readonly headers: Record<string, string | string[]>;
  readonly relay: ResponseRelay;
}

function dispatchCall(call: Call, body: PreparedBody | undefined): void {
  call.dispatcher.dispatch(
    { path: call.path, method: call.method, headers: call.headers, body: dispatchBody(body) },
    call.relay,
  );
}

function createUpstream(
  upstream: UpstreamConfig,
  context: {
    readonly config: SidecarConfig;
    readonly clock: Clock;
    readonly random: RandomSource;
    readonly metrics: SidecarMetrics;
    readonly deadlineHeader: string;
    readonly telemetry: TelemetryProviders | false;
  },
): Upstream {
  const { config, clock, random, metrics } = context;
  // The upstream's `retries` and `timeouts` override the classes' here (k_i^p and T_i^p of the
  // model): a policy of its own, since the runtime's `retryLimit` can only lower a class's limit.
  const classes: Record<string, ClassOptions> = {};
  for (const spec of config.classes) {
    const hop = upstreamHop(config, upstream, spec.name);
    classes[spec.name] = {
      retries: hop.retries,
      ...(hop.timeoutMs !== undefined && { timeoutMs: hop.timeoutMs }),
      ...(spec.backoff !== undefined && { backoff: spec.backoff }),
    };
  }
  const policy = retryPolicy({
    classes,
    ...(config.defaultClass !== undefined && { defaultClass: config.defaultClass }),
    header: config.header,
    ...(config.backoff !== undefined && { backoff: config.backoff }),
    ...(config.retryOn !== undefined && { retryOn: config.retryOn }),
    ...(config.methods !== undefined && { methods: config.methods }),
    clock,
    random,
  });
  // An adaptive strategy times every class; fixed timeouts are the policy's, per class.
  const timeout =
    upstream.timeout !== undefined ? createTimeoutStrategy(upstream.timeout, { clock }) : undefined;
  const meters = new Map(
    config.classes.map((spec) => [spec.name, metrics.outbound(upstream.name, spec.name)]),
  );
  const meter = (event: RetryEvent) => meters.get(event.className) as OutboundMeters;
  const pool = new Pool(new URL(upstream.url).origin, {
    // Without these, undici waits 300 s for headers and between body chunks, so an upstream that
    // never answers, or stalls mid-body, holds the caller that long when no per-try timeout or
    // deadline is set. Either ends the attempt with 504 (or cuts a response already started).
    headersTimeout: upstream.headersTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUTS.headersTimeoutMs,
    bodyTimeout: upstream.bodyTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUTS.bodyTimeoutMs,
    ...(upstream.connections !== undefined && { connections: upstream.connections }),
  });
  const dispatcher = pool.compose(
    difftryInterceptor({
      policy,
      deadlineHeader: context.deadlineHeader,
      telemetry: context.telemetry,
      ...(upstream.deadlineMs !== undefined && { deadlineMs: upstream.deadlineMs }),
      ...(timeout !== undefined && { timeout }),
      onSuccess: (event) => meter(event).attempt(),
      onFailure: (event) => meter(event).attempt(),
      onRetry: (event) => meter(event).retry(),
      onGiveUp: (event) => {
        // A 404 or a 500 is the upstream's answer, not a rejection the policy gave up on.
        if (event.reason === undefined || !policy.isRetryable(event.outcome)) return;
        if (event.reason !== 'limit') {
          if (event.reason !== 'success' && event.reason !== 'not-retryable') {
            meter(event).giveUp(event.reason);
          }
        } else if (event.attempts - 1 < policy.retryLimit(event.className)) {
          // Stopped below the class's limit by the call's own limit: a streamed body.
          meter(event).giveUp('unreplayable');
        } else meter(event).rejection();
      },
    }),
  );
  return {
    name: upstream.name,
    url: upstream.url,
    prefix: upstream.prefix,
    hosts: upstream.hosts,
    policy,
    timeout,
    mesh: upstream.mesh,
    pool,
    dispatcher,
    meters,
    describe: (error) => {
      const code = errorCode(error);
      const text =
        code === undefined || error.message.includes(code)
          ? error.message
          : `${code}: ${error.message}`;
      return `difftry: upstream ${upstream.name}: ${text}`;
    },
  };
}
