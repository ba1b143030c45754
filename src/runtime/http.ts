import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidArgumentTypeError } from '../core/InvalidArgumentTypeError.js';
import { classHeaderVariant } from '../policy/request/classHeaderVariant.js';
import { hostFieldRefusal } from '../policy/request/hostRefusal.js';
import { normalizeRequestPath } from '../policy/request/normalizePath.js';
import type { RetryPolicy } from '../policy/retry/RetryPolicy.js';
import { runWithContext } from './context.js';
import { parseRemainingMs } from './remainingTime.js';

/** What the server helpers need of a policy: class header, class resolution and clock. */
export type ClassResolver = Pick<RetryPolicy, 'header' | 'classify'> &
  Partial<Pick<RetryPolicy, 'clock'>>;

/**
 * The class of an inbound request from its class header (`policy.header`), for a service that
 * trusts its callers (an internal hop behind the edge); unknown or missing → the default class.
 * @example
 * ```ts
 * http.createServer((req, res) => res.end(classFromRequest(policy, req)));
 * ```
 */
export function classFromRequest(
  policy: ClassResolver,
  req: Pick<IncomingMessage, 'headers'>,
): string {
  const value = req.headers[policy.header];
  return policy.classify(Array.isArray(value) ? value[0] : value);
}

/** Options of {@link withRequestContext}. */
export interface RequestContextOptions<Req extends IncomingMessage = IncomingMessage> {
  /**
   * Edge mode: the class of a request from what the edge knows of it (a route, an API key, a
   * customer tier); a name the policy does not know, or undefined, gives the default class. The
   * caller's class header is then not trusted (see `trustHeader`).
   */
  readonly edge?: (req: Req) => string | undefined;
  /**
   * Whether the caller's class header is believed: a boolean, or a function of the request (its
   * peer address, its client certificate). Default true without `edge`, false with it. An
   * untrusted header is removed from the request before the handler runs.
   * @default true without `edge`, false with it
   */
  readonly trustHeader?: boolean | ((req: Req) => boolean);
  /**
   * A header carrying the caller's remaining time in milliseconds (a relative budget, like gRPC's
   * `grpc-timeout`, so clocks need not agree), which becomes the context's deadline. Malformed
   * values are ignored. Default none.
   * @default none (no deadline header)
   */
  readonly deadlineHeader?: string;
  /**
   * Edge mode only: whether `req.url` is made canonical before `edge(req)` and the handler read
   * it (dot segments removed, unreserved escapes decoded, repeated slashes merged; see
   * `normalizeRequestPath`), and a target two readers could resolve apart (`%2F`, `%5C`,
   * `%252e`, `..;`, escapes that are not UTF-8 such as the overlong `%C0%AF`, look-alikes such
   * as `%EF%BC%8F` unless `refuseLookAlikes` is false) answered with 400 before the handler runs. Default true: a route the edge
   * classified must be the route the handler serves. Turn it off only when a router before this
   * one has already done the same.
   * @default true
   */
  readonly normalizeTarget?: boolean;
  /**
   * Edge mode, with `normalizeTarget`: whether a path holding a look-alike of ASCII once decoded
   * (full-width `／` `．`, `∕` U+2215, `ｐ`: see `pathLookAlike`), which an application applying
   * NFKC to its decoded path would read as `/`, `.` or `p`, is answered with 400. Default true,
   * since `edge(req)` may read the path; turn it off when it reads none (an API key, a tier).
   * Escapes that are not UTF-8 (`%C0%AF`) get 400 either way.
   * @default true
   */
  readonly refuseLookAlikes?: boolean;
}

/**
 * Wraps a `node:http` request handler so that everything it does — every `retry()`,
 * `difftryFetch` and interceptor call, however deep in its async work — runs in the request's
 * context: its class and deadline. Outbound calls then carry the inbound class to the next hop.
 *
 * **Two modes, one threat.** The class header decides how hard the network works for a request,
 * so whoever can set it can raise their own priority: a client that sends `x-priority: high`
 * on every request would get the retries meant for paying customers, and under overload would
 * push everyone else's requests out.
 * - *Edge mode* (`edge` given), for services that face untrusted callers: the class header from
 *   the caller is ignored and removed from `req.headers` (and `req.rawHeaders`); the class comes
 *   from `edge(req)` alone, and an unknown answer gives the default class, never a higher one.
 *   `trustHeader` may still let chosen callers through (a function of the request). The target
 *   is normalised first (`normalizeTarget`), so `/premium/../admin` is classified, and served, as
 *   `/admin`; a request with two `Host` lines, or a `Host` that is not `host[:port]`, gets 400
 *   (RFC 9112 §3.2), as at the sidecar's listeners.
 *
 * In both modes the header's look-alikes (`x_priority`, `X_PRIORITY` for `x-priority`: any case,
 * `_` for `-`), which CGI-style frameworks read as the class header, are removed before the
 * handler runs; the class header itself stays only when it is trusted.
 * - *Trusted mode* (no `edge`), for internal hops behind the edge: the class header is taken as
 *   is (unknown → the default class). Use it only where every caller is your own.
 *
 * Context follows promises and `await`: read the body with `for await (const chunk of req)` or
 * a promise-based helper. A listener added with `req.on('end', …)` may run in the socket's
 * context instead; wrap it in `AsyncResource.bind` to keep the request's.
 * @example
 * ```ts
 * const policy = retryPolicy({ classes: { high: { retries: 5 }, low: { retries: 1 } } });
 * const fetchWithRetries = difftryFetch({ policy });
 * // At the edge: the class comes from the API key, whatever the client sends.
 * const edge = http.createServer(
 *   withRequestContext(
 *     policy,
 *     async (req, res) => {
 *       const orders = await fetchWithRetries('http://orders/api'); // carries x-priority
 *       res.end(await orders.text());
 *     },
 *     { edge: (req) => (premiumKeys.has(String(req.headers['x-api-key'])) ? 'high' : undefined) },
 *   ),
 * );
 * // Behind it: trust the header set by the edge.
 * const orders = http.createServer(withRequestContext(policy, handleOrders));
 * ```
 */
export function withRequestContext<Req extends IncomingMessage, Res extends ServerResponse, R>(
  policy: ClassResolver,
  handler: (req: Req, res: Res) => R,
  options: RequestContextOptions<Req> = {},
): (req: Req, res: Res) => R | undefined {
  const { edge, trustHeader = edge === undefined } = options;
  const normalizeTarget = edge !== undefined && options.normalizeTarget !== false;
  const spoofsClass = classHeaderVariant(policy.header);
  if (edge !== undefined && typeof edge !== 'function') {
    throw new InvalidArgumentTypeError(
      `edge should be a function of the request, got ${typeof edge}`,
    );
  }
  const deadlineHeader = options.deadlineHeader?.toLowerCase();
  // The deadline is on the policy's clock, the one `retry()` compares it with.
  const clock = policy.clock ?? Date.now;
  const normalizeOptions = { refuseLookAlikes: options.refuseLookAlikes !== false };
  return (req, res) => {
    if (edge !== undefined) {
      // RFC 9112 §3.2, as the sidecar's listeners do: two Host lines, or one that is not
      // host[:port], before anything reads a host another reader may not see.
      const badHost = hostFieldRefusal(req.rawHeaders);
      if (badHost !== undefined) {
        refuse(res, `difftry: request refused: ${badHost}`);
        return undefined;
      }
    }
    if (normalizeTarget) {
      const normalized = normalizeRequestPath(req.url ?? '/', normalizeOptions);
      if (!normalized.ok) {
        refuse(res, `difftry: request target refused: ${normalized.reason}`);
        return undefined;
      }
      req.url = normalized.path + normalized.query;
    }
    removeHeaders(req, (name) => name !== policy.header && spoofsClass(name));
    const trusted = typeof trustHeader === 'function' ? trustHeader(req) : trustHeader;
    let className: string;
    if (trusted && req.headers[policy.header] !== undefined) {
      className = classFromRequest(policy, req);
    } else {
      removeHeaders(req, (name) => name === policy.header);
      className = policy.classify(edge?.(req));
    }
    const deadlineMs =
      deadlineHeader === undefined ? undefined : readDeadline(req, deadlineHeader, clock);
    return runWithContext(
      deadlineMs === undefined ? { className } : { className, deadlineMs },
      () => handler(req, res),
    );
  };
}

/** Answers 400 with `text` and closes the connection: the request is never handled. */
function refuse(res: ServerResponse, text: string): void {
  const body = `${text}\n`;
  res.writeHead(400, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

/** Removes every header whose lower-case name `matches` from a request (and its raw headers). */
function removeHeaders(req: IncomingMessage, matches: (name: string) => boolean): void {
  for (const name of Object.keys(req.headers)) if (matches(name)) delete req.headers[name];
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    if (matches((raw[i] as string).toLowerCase())) raw.splice(i, 2);
  }
}

/** The absolute deadline (ms on `clock`) from a remaining-time header, if well formed. */
function readDeadline(req: IncomingMessage, name: string, clock: () => number): number | undefined {
  const value = req.headers[name];
  const remainingMs = parseRemainingMs(Array.isArray(value) ? value[0] : value);
  return remainingMs === undefined ? undefined : clock() + remainingMs;
}
