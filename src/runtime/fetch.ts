import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../core/InvalidArgumentTypeError.js';
import type { RetryPolicy } from '../policy/retry/RetryPolicy.js';
import {
  type AdapterOptions,
  checkAdapterOptions,
  type PolicySource,
  resolvePolicy,
  responseOutcome,
} from './adapter.js';
import { Cancellation } from './Cancellation.js';
import { currentContext } from './context.js';
import { executeRetry } from './retry.js';
import { adapterTelemetry, httpAttempt, traceHeaders } from './telemetry/attemptDescriptions.js';

/** A function with `fetch`'s signature. */
export type FetchFunction = (
  input: string | URL | Request,
  init?: RequestInit,
) => Promise<Response>;

/** Options of {@link difftryFetch} besides the policy. */
export interface FetchAdapterOptions extends AdapterOptions {
  /**
   * The fetch each attempt calls; default `globalThis.fetch` (looked up at each call).
   * @default globalThis.fetch
   */
  readonly fetch?: FetchFunction;
  /**
   * The largest request body (bytes) kept in memory to be sent again on a retry; default 1 MiB.
   * A larger body is sent once, with no retries.
   * @default 1_048_576 (1 MiB)
   */
  readonly maxBufferBytes?: number;
}

/** Options of {@link difftryFetch}: a policy (or its options) and the adapter's settings. */
export type DifftryFetchOptions = PolicySource & FetchAdapterOptions;

const DEFAULT_MAX_BUFFER_BYTES = 1024 * 1024;

/**
 * A `fetch` with DiffTry retries: a rejected attempt (503, 429, a refused connection, a per-try
 * timeout, as the policy says) is retried up to its class's limit, after the backoff or the
 * server's `Retry-After`.
 *
 * - **Class.** From the request's class header (`policy.header`, default `x-priority`), else from
 *   the current request context (see `withRequestContext`), else the default class. The resolved
 *   class is set on the outbound header, so it travels to the next hop.
 * - **Idempotency.** The method feeds the policy's rule: by default a POST is sent once.
 * - **Body.** A body of at most `maxBufferBytes` is kept (a copy, for byte arrays) and sent intact
 *   on every attempt. A stream, whose size is unknown, is read up to the limit first: one that
 *   ends within it is replayed like any other; a longer one is sent once, with no retries, its
 *   buffered head followed by the rest. Pass `maxBufferBytes: 0` to send every body straight
 *   through, once.
 * - **Signals.** Each attempt has its own signal: the caller's `signal` aborts the whole call (the
 *   attempt in flight or the wait) and the call rejects with its reason; a per-try timeout aborts
 *   only its attempt.
 * - **Result.** A response that is retried has its body cancelled. After the last attempt the
 *   response is returned as it came (a 503 stays a 503); what is not a response is thrown (such
 *   as `TypeError: fetch failed` with `cause.code === 'ECONNREFUSED'`, or a `AttemptTimeoutError`).
 *
 * Build it once and share it: a retry budget or an adaptive timeout lives in it.
 * @example
 * ```ts
 * import { difftryFetch } from 'difftry';
 * const fetchWithRetries = difftryFetch({
 *   classes: { high: { retries: 5 }, low: { retries: 1 } },
 *   defaultClass: 'low',
 *   header: 'x-priority',
 *   backoff: { kind: 'exponential', baseMs: 50, maxMs: 2000, jitter: 'full' },
 * });
 * const res = await fetchWithRetries('http://orders/api', { headers: { 'x-priority': 'high' } });
 * ```
 */
export function difftryFetch(options: DifftryFetchOptions): FetchFunction {
  const policy = resolvePolicy(options);
  checkAdapterOptions(options);
  const maxBufferBytes = options.maxBufferBytes ?? DEFAULT_MAX_BUFFER_BYTES;
  if (!(Number.isSafeInteger(maxBufferBytes) && maxBufferBytes >= 0)) {
    throw new InvalidArgumentError(
      `maxBufferBytes should be a non-negative integer, got ${options.maxBufferBytes}`,
    );
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw new InvalidArgumentTypeError(`fetch should be a function, got ${typeof options.fetch}`);
  }
  const { deadlineMs, timeout, onRetry, onGiveUp, onSuccess, onFailure } = options;

  return async (input, init) => {
    const fetchAttempt = options.fetch ?? globalThis.fetch;
    const request = input instanceof Request ? input : undefined;
    const signal =
      init !== undefined && 'signal' in init ? (init.signal ?? undefined) : request?.signal;
    signal?.throwIfAborted();
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    // As in `new Request(input, init)`: headers given in `init` replace the request's.
    const headers = new Headers(init?.headers ?? request?.headers);
    const className = classOf(policy, headers.get(policy.header));
    headers.set(policy.header, className);
    const body = await prepareBody(
      init?.body !== undefined ? init.body : (request?.body ?? undefined),
      maxBufferBytes,
    );
    signal?.throwIfAborted();

    // The call follows the caller's signal, if any. An attempt nothing can abort (no caller
    // signal, no per-try timeout) goes without one: a signal shared by every such attempt would
    // collect one listener per fetch until the next garbage collection (undici removes them then).
    const call = signal === undefined ? Cancellation.never : Cancellation.following(signal);
    const telemetry = adapterTelemetry(options.telemetry, (providers) =>
      httpAttempt<Response>(method, urlOf(input), (response) => response.status, providers),
    );
    const result = executeRetry<Response>(
      (_info, attempt) =>
        fetchAttempt(input, {
          ...init,
          headers: telemetry === false ? headers : withTraceHeaders(headers),
          ...(attempt.abortable ? { signal: attempt.signal } : {}),
          ...(body.present ? { body: body.value } : {}),
          ...(body.stream ? { duplex: 'half' as const } : {}),
        }),
      {
        policy,
        className,
        method,
        deadlineMs,
        timeout,
        retryLimit: body.replayable ? undefined : 0,
        classify: (response) =>
          responseOutcome(
            policy,
            response.status,
            (name) => response.headers.get(name) ?? undefined,
          ),
        discard: (response) => {
          // Not awaited: the next attempt need not wait for the old connection to wind down.
          response.body?.cancel().catch(() => {});
        },
        onRetry,
        onGiveUp,
        onSuccess,
        onFailure,
        telemetry,
      },
      call,
    );
    return call === Cancellation.never ? result : result.finally(() => call.release());
  };
}

/** The URL a fetch input names. */
function urlOf(input: Parameters<FetchFunction>[0]): string | URL {
  return input instanceof Request ? input.url : input;
}

/** `headers` with the attempt's trace context (its span is the callee's parent), when traced. */
function withTraceHeaders(headers: Headers): Headers {
  const traced = traceHeaders();
  if (traced === undefined) return headers;
  const own = new Headers(headers);
  for (const [name, value] of Object.entries(traced)) own.set(name, value);
  return own;
}

/** The class of an outbound request: its header, else the request context's, else the default. */
function classOf(policy: RetryPolicy, header: string | null): string {
  return policy.classify(header ?? currentContext()?.className);
}

/** A request body made ready for one or more attempts. */
interface PreparedBody {
  /** Whether the body is passed explicitly (it replaces a `Request` input's). */
  readonly present: boolean;
  readonly value: RequestInit['body'];
  /** Whether every attempt may send `value` again. */
  readonly replayable: boolean;
  /** Whether `value` is a stream (fetch then needs `duplex: 'half'`). */
  readonly stream: boolean;
}

type Chunk = Uint8Array | string;

/** Keeps a body for replay when it fits in `maxBufferBytes` (see {@link difftryFetch}). */
async function prepareBody(body: unknown, maxBufferBytes: number): Promise<PreparedBody> {
  const sendAs = (value: unknown, replayable: boolean, stream = false): PreparedBody => ({
    present: true,
    value: value as RequestInit['body'],
    replayable,
    stream,
  });
  if (body === undefined)
    return { present: false, value: undefined, replayable: true, stream: false };
  if (body === null) return sendAs(null, true);
  // Immutable bodies are sent as they are, so fetch keeps setting their content type.
  if (typeof body === 'string') return sendAs(body, Buffer.byteLength(body) <= maxBufferBytes);
  if (body instanceof URLSearchParams) {
    return sendAs(body, Buffer.byteLength(body.toString()) <= maxBufferBytes);
  }
  if (body instanceof Blob) return sendAs(body, body.size <= maxBufferBytes);
  // A FormData is already in memory and fetch serialises it afresh for every attempt.
  if (body instanceof FormData) return sendAs(body, true);
  // Byte arrays are copied, so that the caller reusing its buffer cannot change a retry.
  if (body instanceof ArrayBuffer) {
    return body.byteLength <= maxBufferBytes ? sendAs(body.slice(0), true) : sendAs(body, false);
  }
  if (ArrayBuffer.isView(body)) {
    const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    return body.byteLength <= maxBufferBytes ? sendAs(bytes.slice(), true) : sendAs(body, false);
  }
  const iterator = chunkIterator(body);
  if (iterator === undefined || maxBufferBytes === 0) return sendAs(body, false, true);
  const head: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return sendAs(Buffer.concat(head), true);
    const chunk = toBytes(next.value);
    head.push(chunk);
    size += chunk.byteLength;
    if (size > maxBufferBytes) return sendAs(resume(head, iterator), false, true);
  }
}

/** An iterator over the chunks of a stream or (async) iterable body, or undefined. */
function chunkIterator(body: unknown): AsyncIterator<Chunk> | Iterator<Chunk> | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  // The iterator itself, not `for await`: leaving a `for await` early would cancel the stream.
  const asyncIterate = (body as Partial<AsyncIterable<Chunk>>)[Symbol.asyncIterator];
  if (typeof asyncIterate === 'function') return asyncIterate.call(body);
  const iterate = (body as Partial<Iterable<Chunk>>)[Symbol.iterator];
  if (typeof iterate === 'function') return iterate.call(body);
  return undefined;
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk);
  if (ArrayBuffer.isView(chunk)) {
    return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  throw new InvalidArgumentTypeError(
    `a request body stream should yield bytes, got ${typeof chunk}`,
  );
}

/** A stream of the chunks already read, then the rest of the body. */
function resume(
  head: readonly Uint8Array[],
  rest: AsyncIterator<Chunk> | Iterator<Chunk>,
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index < head.length) {
        controller.enqueue(head[index++] as Uint8Array);
        return;
      }
      const next = await rest.next();
      if (next.done) controller.close();
      else controller.enqueue(toBytes(next.value));
    },
    async cancel(reason) {
      await rest.return?.(reason);
    },
  });
}
