import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type Dispatcher, Pool } from 'undici';
import {
  DEFAULT_INBOUND_UPLOADS,
  DEFAULT_UPSTREAM_TIMEOUTS,
  type InboundConfig,
  type SidecarLimits,
} from '../config/sidecarSchema.js';
import type { Clock } from '../policy/Clock.js';
import type { ClassTable } from '../policy/classes/ClassTable.js';
import {
  nfkcReading,
  normalizeRequestPath,
  originForm,
  stripPathParameters,
} from '../policy/request/normalizePath.js';
import { errorCode } from '../runtime/errors.js';
import { parseRemainingMs } from '../runtime/remainingTime.js';
import { AdmissionGate } from './AdmissionGate.js';
import { classifierReadsPath, type EdgeRequest } from './edgeRules.js';
import type { RequestHandler } from './httpListener.js';
import { BodyTooLargeError, dispatchBody, type PreparedBody, readBody } from './requestBody.js';
import { isChunkedAlone } from './requestHead.js';
import { ResponseRelay, sendPlain } from './responseRelay.js';
import { startServerSpan } from './serverSpan.js';
import type { InboundMeters, SidecarMetrics } from './sidecarMetrics.js';
import type { SidecarTracing } from './sidecarTracing.js';

/** What the inbound side needs besides its config. */
export interface InboundOptions {
  /** This sidecar's service (for messages). */
  readonly service: string;
  readonly inbound: InboundConfig;
  readonly limits: SidecarLimits;
  /** The class header, lower case. */
  readonly classHeader: string;
  readonly classes: ClassTable;
  /**
   * The edge rules, compiled (undefined: not at the edge). Path look-alikes of ASCII are refused
   * unless it is an `edgeClassifier` whose rules have no `path` (`classifierReadsPath`).
   */
  readonly edge?: EdgeClassify;
  /** The trusted peer a request's identity header proves, if any (undefined: trust nobody). */
  readonly peer?: (value: string | undefined) => string | undefined;
  readonly clock: Clock;
  readonly metrics: SidecarMetrics;
  /** Answers `/metrics` and `/healthz` (an inbound-only sidecar); false otherwise. */
  readonly serveAdmin?: (req: IncomingMessage, res: ServerResponse, target?: string) => boolean;
  /** Where each request's server span goes, when tracing. */
  readonly tracing?: SidecarTracing;
}

/** A compiled edge classifier: the class the rules give a request, undefined for none. */
type EdgeClassify = (request: EdgeRequest) => string | undefined;

/** Admission and classification in front of the local application. */
export interface Inbound {
  readonly handle: RequestHandler;
  readonly gate: AdmissionGate<PendingRequest>;
  /** Requests whose bodies are being received now, before they ask for a place. */
  readonly uploading: number;
  /** Closes the pool to the application (after the listener has drained). */
  close(): Promise<void>;
}

/** The body of a refused request is never read: its connection cannot carry another one. */
const CLOSE = Object.freeze({ connection: 'close' });

/** An admitted request waiting for (or holding) one of the application's c slots. */
interface PendingRequest {
  start(): void;
}

/**
 * The inbound side: classifies each request — the class header of a trusted peer, else the edge
 * rules, else the default class; an untrusted caller's header is replaced, never believed — and
 * admits it to the application as an M/M/c/m station: at most c run, at most m are in the system,
 * and the request that finds m present gets 503 at once, before the application does any work.
 * A request whose caller goes away leaves the queue, or ends its call to the application, so a
 * caller's per-try timeout frees the slot.
 */
export function createInbound(options: InboundOptions): Inbound {
  const { inbound, limits, classHeader, classes, edge, peer, clock, metrics, serveAdmin, tracing } =
    options;
  const gate = new AdmissionGate<PendingRequest>(inbound.concurrency, inbound.capacity);
  const app = new URL(inbound.app);
  const basePath = app.pathname.replace(/\/+$/, '');
  // At most c requests run at once, so c connections are all the application ever needs.
  const newPool = () =>
    new Pool(app.origin, {
      connections: inbound.concurrency,
      headersTimeout: inbound.appHeadersTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUTS.headersTimeoutMs,
      bodyTimeout: inbound.appBodyTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUTS.bodyTimeoutMs,
    });
  let pool = newPool();
  const deadlineHeader = limits.deadlineHeader.toLowerCase();
  const meters = new Map(classes.names.map((name) => [name, metrics.inbound(name)]));
  const edgeDefault = classes.defaultClass;
  const fullText = `difftry: ${options.service} is at capacity (${inbound.capacity} requests in the system)`;
  const onAnswer = (status: number, error: Error) => {
    if (status === 413) metrics.limitRejection('inbound', 'body_bytes');
    const code = errorCode(error);
    if (code === 'UND_ERR_INVALID_ARG' || code === 'UND_ERR_NOT_SUPPORTED') {
      // undici 7's Pool keeps a connection's place for a request it refused to build (with a
      // bounded pool, c refusals and it sends nothing again). The listener lets no such request
      // through (origin-form targets, hop-by-hop headers dropped, node:http's own checks); should
      // one pass anyway, it costs a fresh pool, never the application's every later request.
      const refused = pool;
      pool = newPool();
      void refused.close().catch(() => {});
    }
  };
  const uploads = inbound.uploads ?? DEFAULT_INBOUND_UPLOADS;
  let uploading = 0;
  const bodyLimits = { replayBytes: limits.replayBodyBytes, maxBytes: limits.maxBodyBytes };
  const uploadsFullText = `difftry: ${options.service} is receiving ${uploads} request bodies already`;
  const describe = (error: Error) => `difftry: application of ${options.service}: ${error.message}`;
  // Look-alikes of ASCII in a path (`／`, `∕`) matter only where a class can depend on the path.
  const pathDecides = edge !== undefined && classifierReadsPath(edge);

  /** The class the edge rules give a request (on its normalised path). */
  const edgeClass = (rules: EdgeClassify, req: IncomingMessage, path: string): string =>
    classes.resolve(
      rules({
        method: req.method ?? 'GET',
        path,
        header: (name) => {
          const value = req.headers[name];
          return Array.isArray(value) ? value[0] : value;
        },
      }),
    );

  const handle: RequestHandler = (req, res, head) => {
    const received = req.url ?? '/';
    if (received === '*') {
      // Asterisk-form (`OPTIONS *`) asks about the sidecar, not a resource of the application; a
      // 503 here would tell the caller's policy to retry what can never succeed.
      sendPlain(res, 400, 'difftry: request target "*" is not served');
      return;
    }
    let target = received;
    // The path without its query, which only edge rules read (normalised first).
    let path = '';
    let host = head.host;
    if (edge !== undefined) {
      // At the edge the path decides the class: decide on the canonical path and send the
      // application exactly that, so it cannot resolve the target to another resource. The
      // sidecar's own endpoints are matched on it too (`/x/../metrics` is `/metrics`).
      const normalized = normalizeRequestPath(received, { refuseLookAlikes: pathDecides });
      if (!normalized.ok) {
        sendPlain(res, 400, `difftry: request target refused: ${normalized.reason}`);
        return;
      }
      path = normalized.path;
      target = normalized.path + normalized.query;
      // RFC 9112 §3.2.2: an absolute-form target's authority replaces the Host header.
      if (normalized.authority !== undefined) host = normalized.authority;
    } else {
      // Inside the mesh the path decides nothing and goes on as received, but in origin form:
      // the application's pool can be sent nothing else.
      const origin = originForm(received);
      if (!origin.ok) {
        sendPlain(res, 400, `difftry: request target refused: ${origin.reason}`);
        return;
      }
      target = origin.target;
      if (origin.authority !== undefined) host = origin.authority;
    }
    if (serveAdmin?.(req, res, target)) return;
    // Read only for a chunked request, so others never make node:http build `req.headers`.
    if (head.chunked && !isChunkedAlone(req.headers['transfer-encoding'])) {
      sendPlain(res, 501, 'difftry: only the chunked transfer coding is supported', CLOSE);
      return;
    }
    // A trusted peer's class header, else the edge rules, else the default class.
    const fromPeer = head.classValue !== undefined && peer?.(head.peerValue) !== undefined;
    const className = fromPeer
      ? classes.resolve(head.classValue as string)
      : edge === undefined
        ? edgeDefault
        : edgeClass(edge, req, path);
    if (!fromPeer && edge !== undefined && path.includes(';')) {
      // Servlet containers drop path parameters (`/bulk;x/y` is `/bulk/y` to Tomcat), other
      // servers keep them: a class that depends on which reading the application makes is refused.
      const withoutParameters = stripPathParameters(path);
      if (edgeClass(edge, req, withoutParameters) !== className) {
        sendPlain(
          res,
          400,
          `difftry: request target refused: path parameters (";") that change its class (${JSON.stringify(path)} and ${JSON.stringify(withoutParameters)} are classed apart)`,
        );
        return;
      }
    }
    if (!fromPeer && edge !== undefined && pathDecides) {
      // An application that applies NFKC to its decoded path reads `cafe%CC%81` (e + U+0301) as
      // `café`: only a rule with non-ASCII text can class the two readings apart, and then the
      // request is refused, as for path parameters.
      const reading = nfkcReading(path);
      if (reading !== undefined && edgeClass(edge, req, reading) !== className) {
        sendPlain(
          res,
          400,
          `difftry: request target refused: a path whose NFKC reading is classed apart (${JSON.stringify(path)} and ${JSON.stringify(reading)})`,
        );
        return;
      }
    }
    const meter = meters.get(className) as InboundMeters;
    meter.arrival();
    const span =
      tracing === undefined
        ? undefined
        : startServerSpan(tracing, req.method ?? 'GET', target, className, head.headers);
    const arrivedAt = performance.now();
    const remainingMs = parseRemainingMs(head.deadlineValue);
    const deadlineMs = remainingMs === undefined ? undefined : clock() + remainingMs;
    const hasBody = head.chunked || head.contentLength > 0;
    let body: PreparedBody | undefined;
    let state: 'uploading' | 'turn' | 'queued' | 'running' | 'done' = 'queued';
    const release = () => {
      if (state !== 'running') return;
      state = 'done';
      gate.leave()?.start();
    };
    const pending: PendingRequest = {
      start() {
        state = 'running';
        if (res.destroyed) {
          release();
          return;
        }
        const headers = head.headers;
        headers[classHeader] = className;
        if (host !== undefined) headers.host = host;
        span?.inject(headers);
        if (deadlineMs !== undefined) {
          // Time spent in the queue is time the caller no longer has.
          const leftMs = Math.floor(deadlineMs - clock());
          if (leftMs <= 0) {
            sendPlain(res, 504, `difftry: the deadline passed while queued at ${options.service}`);
            return;
          }
          headers[deadlineHeader] = String(leftMs);
        }
        const opts: Dispatcher.DispatchOptions = {
          path: basePath + target,
          method: req.method as Dispatcher.HttpMethod,
          headers,
          body: dispatchBody(body),
        };
        pool.dispatch(opts, relay);
      },
    };
    const relay = new ResponseRelay(res, describe, onAnswer);
    let holdsUpload = false;
    const endUpload = () => {
      if (!holdsUpload) return;
      holdsUpload = false;
      uploading -= 1;
    };
    res.once('close', () => {
      span?.end(res.statusCode);
      endUpload();
      if (state === 'uploading' || state === 'turn') {
        state = 'done';
        return;
      }
      if (state === 'queued') {
        gate.cancel(pending);
        state = 'done';
        return;
      }
      // Rejected at admission, or its slot already given back.
      if (state !== 'running') return;
      // A response the relay cut ended too: leaving it out would hide the failures' durations.
      if (res.writableFinished || relay.cut) meter.latency((performance.now() - arrivedAt) / 1000);
      else relay.abort(new Error('difftry: the caller went away'));
      release();
    });
    const reject = (headers?: Readonly<Record<string, string>>) => {
      state = 'done';
      meter.admissionRejection();
      span?.end(503, true);
      sendPlain(res, 503, fullText, headers);
    };
    const admit = () => {
      if (res.socket === null) {
        // Pipelined behind a request of the same connection whose response is still to come:
        // node:http writes responses in request order, so this one could not be answered before
        // that one, which may itself be waiting for a place (its body read first). Ask for a
        // place only when its turn on the connection comes, or the two would wait on each other.
        state = 'turn';
        res.once('socket', () => {
          if (state === 'turn') admit();
        });
        return;
      }
      state = 'queued';
      switch (gate.enter(pending)) {
        case 'run':
          pending.start();
          return;
        case 'queued':
          return;
        case 'rejected':
          // A body still streaming was never read to its end: the connection cannot go on.
          reject(body === undefined || Buffer.isBuffer(body) ? undefined : CLOSE);
          return;
      }
    };
    if (!hasBody) {
      admit();
      return;
    }
    // A request with a body is received (up to replayBodyBytes, its whole body) before it asks
    // for a place, so a client trickling its upload holds an upload place, never one of the c
    // places the application's work needs. Full at arrival: refused before a byte is read.
    if (gate.inSystem >= inbound.capacity) {
      reject(CLOSE);
      return;
    }
    if (uploading >= uploads) {
      metrics.limitRejection('inbound', 'uploads');
      state = 'done';
      sendPlain(res, 503, uploadsFullText, CLOSE);
      return;
    }
    uploading += 1;
    holdsUpload = true;
    state = 'uploading';
    readBody(req, bodyLimits).then(
      (received) => {
        endUpload();
        if (state !== 'uploading' || res.destroyed) return;
        body = received;
        admit();
      },
      (error: unknown) => {
        endUpload();
        if (state !== 'uploading') return;
        state = 'done';
        if (error instanceof BodyTooLargeError) {
          metrics.limitRejection('inbound', 'body_bytes');
          sendPlain(res, 413, `difftry: request body over ${limits.maxBodyBytes} bytes`, CLOSE);
        } else {
          // The client went away, or its upload ran past requestTimeoutMs (node:http closes it).
          res.destroy();
        }
      },
    );
  };

  return {
    handle,
    gate,
    get uploading() {
      return uploading;
    },
    close: () => pool.destroy(),
  };
}
