import { gatewayDurationMs } from './durations.js';
import type { HttpRequest, HttpRouteDoc, RouteRule, Selected } from './meshes/httpRouteMatch.js';
import { selectRule } from './meshes/httpRouteMatch.js';
import { minDefined, type ReadHop } from './readHop.js';

// The HTTPRoute rule a request takes (Gateway API precedence, test/deploy/meshes/httpRouteMatch.ts),
// and the retries and per-try timeout a Gateway API implementation gives it (GEP-1731, GEP-1742).

/** The rule a request takes among routes attached to one parent, which must exist. */
export function take(routes: readonly HttpRouteDoc[], request: HttpRequest): Selected {
  const selected = selectRule(routes, request);
  if (selected === undefined) throw new Error(`no route for ${JSON.stringify(request)}`);
  return selected;
}

/** The rule a request takes among routes attached to one parent, which must exist. */
export function takeRule(routes: readonly HttpRouteDoc[], request: HttpRequest): RouteRule {
  return take(routes, request).rule;
}

/**
 * The hop of a rule: `retry.attempts` (none without `retry`; unset in a `retry` it is
 * implementation-specific, which throws), and the per-try timeout `timeouts.backendRequest`,
 * never outlasting `timeouts.request` (all attempts together).
 */
export function gatewayHop(rule: RouteRule): ReadHop {
  if (rule.retry !== undefined && rule.retry.attempts === undefined) {
    throw new Error('a retry with no attempts: implementation-specific');
  }
  const read = (text: string | undefined) => {
    const ms = text === undefined ? undefined : gatewayDurationMs(text);
    return ms === 0 ? undefined : ms;
  };
  return {
    retries: rule.retry?.attempts ?? 0,
    timeoutMs: minDefined(read(rule.timeouts?.backendRequest), read(rule.timeouts?.request)),
  };
}
