import type { IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import { DifftryError } from '../runtime/errors.js';

/** A request body over `maxBodyBytes` (code `DIFFTRY_BODY_TOO_LARGE`; the sidecar answers 413). */
export class BodyTooLargeError extends DifftryError {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super('DIFFTRY_BODY_TOO_LARGE', `request body over ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
    this.maxBytes = maxBytes;
  }
}

/** How a request's body goes upstream. */
export type BodyPlan =
  /** No body: nothing to read, the call may be retried. */
  | 'none'
  /** Read it whole first (up to the replay limit), so every attempt can send it again. */
  | 'buffer'
  /** Send it as it arrives, once: no retries. */
  | 'stream'
  /** Declared over the limit: 413 before reading a byte. */
  | 'too-large';

/**
 * Decides how a body is handled from its framing alone (a pure decision): a declared length over
 * `maxBytes` is refused, one up to `replayBytes` is buffered, a longer one streamed; a chunked
 * body of unknown length is buffered and turns into a stream if it outgrows `replayBytes`.
 */
export function bodyPlan(
  contentLength: number,
  chunked: boolean,
  limits: { readonly replayBytes: number; readonly maxBytes: number },
): BodyPlan {
  if (chunked) return 'buffer';
  if (!(contentLength > 0)) return 'none';
  if (contentLength > limits.maxBytes) return 'too-large';
  return contentLength <= limits.replayBytes ? 'buffer' : 'stream';
}

/** A body read for sending: whole (replayable), or as a stream (sent once). */
export type PreparedBody = Buffer | AsyncIterable<Buffer>;

/**
 * A prepared body as undici's dispatch options type it. undici sends async iterables (its
 * `Request` accepts "a string, a Buffer, a Readable stream, an iterable, or an async iterable"),
 * but its `DispatchOptions` type omits them; an iterable spares a `Readable` per streamed body.
 */
export function dispatchBody(body: PreparedBody | undefined): Dispatcher.DispatchOptions['body'] {
  return body as Dispatcher.DispatchOptions['body'];
}

/**
 * Reads a request body up to `replayBytes`: resolves to the whole body as one Buffer when it ends
 * within that, else to a stream that yields what was read and then the rest, counting against
 * `maxBytes` (over it, the stream throws {@link BodyTooLargeError}, which ends the call upstream).
 * Rejects if the client goes away mid-body, or with {@link BodyTooLargeError}.
 */
export async function readBody(
  req: IncomingMessage,
  limits: { readonly replayBytes: number; readonly maxBytes: number },
): Promise<PreparedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  const iterator = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
    chunks.push(next.value);
    size += next.value.length;
    if (size > limits.replayBytes) break;
  }
  if (size > limits.maxBytes) throw new BodyTooLargeError(limits.maxBytes);
  return streamBody(iterator, limits.maxBytes, chunks, size);
}

/**
 * A body sent as it arrives (after `head`, already read), counted against `maxBytes`.
 *
 * It reads the request through its iterator by hand, never with `for await`: leaving such a loop
 * early destroys the request, and with it the socket the sidecar still has to answer on (a 413,
 * a 503).
 */
export async function* streamBody(
  source: IncomingMessage | AsyncIterator<Buffer>,
  maxBytes: number,
  head: readonly Buffer[] = [],
  headBytes = 0,
): AsyncGenerator<Buffer> {
  const iterator =
    typeof (source as AsyncIterator<Buffer>).next === 'function'
      ? (source as AsyncIterator<Buffer>)
      : ((source as IncomingMessage)[Symbol.asyncIterator]() as AsyncIterator<Buffer>);
  yield* head;
  let size = headBytes;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return;
    size += next.value.length;
    if (size > maxBytes) throw new BodyTooLargeError(maxBytes);
    yield next.value;
  }
}
