import type { SpanReading } from './SpanStore.js';
import type { SpanAttributeValue, TraceSpan } from './TraceSpan.js';

/** Where a span's request class is read from. */
export interface ClassSource {
  /** The span attribute naming the class (default `difftry.class`). */
  readonly attribute: string;
  /**
   * The request header carrying it (default `x-priority`), read from the attribute
   * `http.request.header.<header>` that OpenTelemetry's HTTP conventions record.
   */
  readonly header: string;
}

/** `difftry from-traces`' defaults: the class from `difftry.class`, else the `x-priority` header. */
export const DEFAULT_CLASS_SOURCE: ClassSource = {
  attribute: 'difftry.class',
  header: 'x-priority',
};

const STATUS_ATTRIBUTES = ['http.response.status_code', 'http.status_code'] as const;
/** HTTP statuses that say the server turned the request away: 503 (overload), 429 (throttled). */
const REJECTING_STATUSES = new Set([503, 429]);
/** gRPC's RESOURCE_EXHAUSTED. */
const GRPC_RESOURCE_EXHAUSTED = 8;

function first(value: SpanAttributeValue | undefined): string | number | boolean | undefined {
  return Array.isArray(value) ? value[0] : (value as string | number | boolean | undefined);
}

function text(value: SpanAttributeValue | undefined): string | undefined {
  const scalar = first(value);
  if (scalar === undefined) return undefined;
  const s = String(scalar).trim();
  return s === '' ? undefined : s;
}

function integer(value: SpanAttributeValue | undefined): number | undefined {
  const scalar = first(value);
  const n = typeof scalar === 'number' ? scalar : Number(scalar);
  return scalar !== undefined && scalar !== '' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** An address that can name a service (`cart`, `cart.shop.svc`), not an IP literal or localhost. */
function hostName(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const literal = /^\d{1,3}(\.\d{1,3}){3}$/.test(address) || address.includes(':');
  return literal || address.toLowerCase() === 'localhost' ? undefined : address;
}

/**
 * What `difftry from-traces` keeps of a span's attributes: its own class (the class attribute,
 * else the header attribute; a span with neither inherits its parent's later), the resend count
 * (`http.request.resend_count`, OpenTelemetry's HTTP convention; `difftry.attempt` − 1 where a
 * difftry span says it), the callee a client span names (`peer.service`, else a `server.address` that is a host name, not an IP literal or `localhost`)
 * and whether a server span records a rejection: `yes` where `difftry.outcome` says `rejected`
 * (difftry's sidecars and testbed say it of admission rejections only), `by-status` where no
 * outcome is recorded but the status is one a rejection answers with (HTTP 503 or 429, gRPC
 * RESOURCE_EXHAUSTED) — a rejection only if the request made no calls (a request that worked
 * and then failed a call answers 503 too).
 */
export function spanReading(span: TraceSpan, source: ClassSource): SpanReading {
  const a = span.attributes;
  const className =
    text(a[source.attribute]) ?? text(a[`http.request.header.${source.header.toLowerCase()}`]);
  const attempt = integer(a['difftry.attempt']);
  const resendCount =
    integer(a['http.request.resend_count']) ??
    (attempt !== undefined && attempt >= 1 ? attempt - 1 : undefined);
  const peer =
    span.kind === 'client' || span.kind === 'producer'
      ? (text(a['peer.service']) ?? hostName(text(a['server.address'])))
      : undefined;
  let rejected: SpanReading['rejected'] = 'no';
  if (span.kind === 'server' || span.kind === 'consumer') {
    const outcome = text(a['difftry.outcome']);
    const status = STATUS_ATTRIBUTES.map((key) => integer(a[key])).find((s) => s !== undefined);
    if (outcome === 'rejected') rejected = 'yes';
    else if (
      outcome === undefined &&
      ((status !== undefined && REJECTING_STATUSES.has(status)) ||
        integer(a['rpc.grpc.status_code']) === GRPC_RESOURCE_EXHAUSTED)
    ) {
      rejected = 'by-status';
    }
  }
  return { className, resendCount, peer, rejected };
}
