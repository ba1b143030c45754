import { gatewayDurationMs } from './durations.js';
import { minDefined, type ReadHop } from './readHop.js';

// Linkerd's retries, read from a route's annotations as its policy controller reads them.

/** The retry policy of a route, as Linkerd's policy controller builds it. */
export interface LinkerdRetry {
  readonly limit: number;
  readonly timeout?: string;
  /** Inclusive status ranges. */
  readonly statuses?: readonly (readonly [number, number])[];
}

/**
 * The retry policy Linkerd 2.16's policy controller reads from a route's annotations, after its
 * `parse_http_retry`: a limit of 0 (or a timeout of 0) counts as not given; with nothing given
 * there is no policy (the parent Service's annotations apply, then none); with anything given the
 * limit defaults to 1. Statuses are codes, `a-b` ranges, `5xx` and `gateway-error`.
 */
export function linkerdRetry(
  annotations: Readonly<Record<string, string>> = {},
): LinkerdRetry | undefined {
  const limitText = annotations['retry.linkerd.io/limit'];
  const limit = limitText === undefined ? undefined : Number(limitText);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0 && limit < 65_536)) {
    throw new Error(`bad retry.linkerd.io/limit ${limitText}`);
  }
  const timeoutText = annotations['retry.linkerd.io/timeout'];
  if (timeoutText !== undefined && !/^([0-9]{1,5}(h|m|s|ms)){1,4}$/.test(timeoutText)) {
    throw new Error(`bad retry.linkerd.io/timeout ${timeoutText}`);
  }
  const timeout =
    timeoutText === undefined || /^(0+(h|m|s|ms))+$/.test(timeoutText) ? undefined : timeoutText;
  const http = annotations['retry.linkerd.io/http'];
  const statuses = http?.split(',').map((part): [number, number] => {
    if (part.toLowerCase() === '5xx') return [500, 599];
    if (part.toLowerCase() === 'gateway-error') return [502, 504];
    const [a, b = a] = part.split('-').map(Number) as [number, number?];
    if (!(a >= 100 && a < 600 && b >= a && b < 600)) throw new Error(`bad status ${part}`);
    return [a, b];
  });
  const given = limit !== undefined && limit !== 0 ? limit : undefined;
  if (given === undefined && timeout === undefined && statuses === undefined) return undefined;
  return {
    limit: given ?? 1,
    ...(timeout !== undefined && { timeout }),
    ...(statuses !== undefined && { statuses }),
  };
}

/** Whether a policy retries `status`. */
export const retried = (policy: LinkerdRetry | undefined, status: number): boolean =>
  (policy?.statuses ?? []).some(([a, b]) => status >= a && status <= b);

/**
 * The hop Linkerd gives a route (the Services carrying no retry annotations of their own): the
 * policy's limit (none without a policy), and the per-try timeout — the policy's, never
 * outlasting the route's request timeout (`timeout.linkerd.io/request`, all attempts together),
 * which with no retry is the one attempt's.
 */
export function linkerdHop(annotations: Readonly<Record<string, string>> = {}): ReadHop {
  const policy = linkerdRetry(annotations);
  const request = annotations['timeout.linkerd.io/request'];
  const requestMs = request === undefined ? undefined : gatewayDurationMs(request);
  return {
    retries: policy?.limit ?? 0,
    timeoutMs: minDefined(
      policy?.timeout === undefined ? undefined : gatewayDurationMs(policy.timeout),
      requestMs === 0 ? undefined : requestMs,
    ),
  };
}
