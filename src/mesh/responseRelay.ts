import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { errorCode } from '../runtime/errors.js';
import { endToEndResponseHeaders } from './requestHead.js';

/**
 * The sidecar's answer when no response came from upstream, by the error that ended the call:
 * - 504 for a per-try timeout or deadline (`DIFFTRY_TIMEOUT`) and undici's header or body timeouts;
 * - 413 for a request body over `maxBodyBytes` (`DIFFTRY_BODY_TOO_LARGE`);
 * - 400 for a request undici refuses to send (`UND_ERR_INVALID_ARG`, `UND_ERR_NOT_SUPPORTED`):
 *   sent again it would be refused again, so not a status a caller retries;
 * - 503 for everything else (connection refused or reset, a socket closed mid-response), as Envoy
 *   answers an upstream connection failure: a rejection the caller's policy may retry.
 */
export function errorStatus(error: unknown): number {
  switch (errorCode(error)) {
    case 'DIFFTRY_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 504;
    case 'DIFFTRY_BODY_TOO_LARGE':
      return 413;
    case 'UND_ERR_INVALID_ARG':
    case 'UND_ERR_NOT_SUPPORTED':
      return 400;
    default:
      return 503;
  }
}

const CLOSE = Object.freeze({ connection: 'close' });

/** Writes a short plain-text answer of the sidecar's own (when the response is still unsent). */
export function sendPlain(
  res: ServerResponse,
  status: number,
  text: string,
  headers?: Readonly<Record<string, string>>,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = `${text}\n`;
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/**
 * An undici handler that relays a response into a `node:http` `ServerResponse` as it arrives:
 * headers without the hop-by-hop ones, the body chunk by chunk with back-pressure (the upstream
 * is paused while the client's socket is full), and, when no response came, the sidecar's own
 * answer from {@link errorStatus}. Once headers are sent, an error can only cut the response.
 */
export class ResponseRelay implements Dispatcher.DispatchHandler {
  readonly #res: ServerResponse;
  readonly #describe: (error: Error) => string;
  readonly #onAnswer: ((status: number, error: Error) => void) | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #abortReason: Error | undefined;
  #cut = false;

  /**
   * @param res the response to the sidecar's caller
   * @param describe the text of the sidecar's own answer to an error, e.g.
   *   `difftry: upstream search: ECONNREFUSED`
   * @param onAnswer told the status of each answer of the sidecar's own, and the error it
   *   answers (for the metrics)
   */
  constructor(
    res: ServerResponse,
    describe: (error: Error) => string,
    onAnswer?: (status: number, error: Error) => void,
  ) {
    this.#res = res;
    this.#describe = describe;
    this.#onAnswer = onAnswer;
  }

  /**
   * Whether the relay cut the response after its headers were sent (the upstream failed
   * mid-body): the call ended, though the response never finished, so it still has a duration.
   */
  get cut(): boolean {
    return this.#cut;
  }

  /** The caller went away: ends the call upstream (an attempt in flight, a wait between them). */
  abort(reason: Error): void {
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason !== undefined) controller.abort(this.#abortReason);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    this.#controller = controller;
    // Informational responses (100 Continue, 103 Early Hints) are the sidecar's own business.
    if (statusCode < 200) return;
    const res = this.#res;
    if (res.destroyed) {
      controller.abort(this.#abortReason ?? new Error('difftry: the caller went away'));
      return;
    }
    res.writeHead(statusCode, endToEndResponseHeaders(headers));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#res.write(chunk)) return;
    controller.pause();
    this.#res.once('drain', () => controller.resume());
  }

  onResponseEnd(): void {
    this.#res.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    const res = this.#res;
    if (res.destroyed || this.#abortReason !== undefined) return;
    if (res.headersSent) {
      // Cut the response: the caller sees a truncated body, never a complete-looking one.
      this.#cut = true;
      res.destroy();
      return;
    }
    const status = errorStatus(error);
    this.#onAnswer?.(status, error);
    // The rest of a body over the limit is never read: the connection cannot carry another request.
    sendPlain(res, status, this.#describe(error), status === 413 ? CLOSE : undefined);
  }
}
