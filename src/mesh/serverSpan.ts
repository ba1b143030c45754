import type * as Api from '@opentelemetry/api';
import type { SidecarTracing } from './sidecarTracing.js';

type Headers = Record<string, string | string[] | undefined>;

/** One request's server span at the inbound listener. */
export interface ServerSpan {
  /** The OpenTelemetry context with this span active (the parent of the request's calls). */
  readonly context: Api.Context;
  /** Puts the span's context on the headers sent to the application (`traceparent`, …). */
  inject(headers: Headers): void;
  /** Ends the span with the answer's status (5xx: an error); `rejected`: turned away at admission. */
  end(status: number, rejected?: boolean): void;
}

/**
 * Starts the server span of a request the inbound listener received: a child of the context its
 * headers carry (W3C `traceparent`), named after the method, with OpenTelemetry's HTTP server
 * attributes and the class as `difftry.class`.
 */
export function startServerSpan(
  tracing: SidecarTracing,
  method: string,
  target: string,
  className: string,
  headers: Headers,
): ServerSpan {
  const { api, tracer } = tracing;
  const parent = api.propagation.extract(api.ROOT_CONTEXT, headers);
  const query = target.indexOf('?');
  const span = tracer.startSpan(
    method,
    {
      kind: api.SpanKind.SERVER,
      attributes: {
        'http.request.method': method,
        'url.path': query === -1 ? target : target.slice(0, query),
        'difftry.class': className,
      },
    },
    parent,
  );
  const context = api.trace.setSpan(parent, span);
  let ended = false;
  return {
    context,
    inject(sent) {
      api.propagation.inject(context, sent);
    },
    end(status, rejected = false) {
      if (ended) return;
      ended = true;
      endSpan(api, span, status, rejected);
    },
  };
}

function endSpan(api: typeof Api, span: Api.Span, status: number, rejected: boolean): void {
  span.setAttribute('http.response.status_code', status);
  if (rejected) span.setAttribute('difftry.outcome', 'rejected');
  if (status >= 500) {
    span.setAttribute('error.type', String(status));
    span.setStatus({ code: api.SpanStatusCode.ERROR });
  }
  span.end();
}

/** Runs `fn` in the context the request's headers carry (the caller's span), for its attempts. */
export function inCallerContext<R>(tracing: SidecarTracing, headers: Headers, fn: () => R): R {
  const { api } = tracing;
  return api.context.with(api.propagation.extract(api.ROOT_CONTEXT, headers), fn);
}
