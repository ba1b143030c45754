import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import { gatewayDuration } from './durations.js';
import { isDnsSubdomain } from './kubernetesNames.js';
import { type KubernetesObject, objectMeta } from './kubernetesObject.js';
import type { ClassHop, EdgeRulePlan, MeshPlan, ServicePlan } from './meshPlan.js';

// What the Gateway API generator and the Linkerd generator share: both write
// gateway.networking.k8s.io/v1 HTTPRoutes attached to Services (GAMMA), match the class header the
// same way and name the default class for the next hop the same way. Each decision lives here once.

/** The API version of every HTTPRoute and Gateway generated. */
export const GATEWAY_API_VERSION = 'gateway.networking.k8s.io/v1';
/** The API group of Gateways (a parentRef to one names it). */
export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';

/** The most rules one HTTPRoute may have (the CRD's `maxItems`). */
export const MAX_RULES_PER_ROUTE = 16;

/** A header value as the CRD takes it: printable US-ASCII, single spaces or tabs inside. */
const HEADER_VALUE = /^[!-~]+([\t ]?[!-~]+)*$/;
/** The methods an HTTPRouteMatch can name (the CRD's enum). */
const ROUTE_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
]);

/** One `matches[]` entry of an HTTPRoute rule. */
export interface RouteMatch {
  readonly path: { readonly type: 'PathPrefix'; readonly value: string };
  readonly method?: string;
  readonly headers?: readonly {
    readonly type: 'Exact' | 'RegularExpression';
    readonly name: string;
    readonly value: string;
  }[];
}

/**
 * @throws RangeError when `value` cannot be an HTTP header value in an HTTPRoute (`what` names it).
 */
export function checkHeaderValue(value: string, what: string): string {
  if (!HEADER_VALUE.test(value)) {
    throw new InvalidArgumentError(
      `${what}: "${value}" cannot be an HTTP header value (printable ASCII, single inner spaces)`,
    );
  }
  return value;
}

/** @throws RangeError when `name` is not a Kubernetes object name (`what` names the option). */
export function checkObjectName(name: string, what: string): string {
  if (!isDnsSubdomain(name)) {
    throw new InvalidArgumentError(
      `${what}: expected a Kubernetes object name (lower-case letters, digits, '-' and '.'), got "${name}"`,
    );
  }
  return name;
}

/** A parentRef to a Service's port: the route applies to calls to that Service (GAMMA). */
export function serviceParentRef(name: string, port: number) {
  return { group: '', kind: 'Service', name, port };
}

/** A backendRef to a Service's port, the route's only backend. */
export function serviceBackendRef(name: string, port: number) {
  return { name, port };
}

/** Every path: the match of a rule with no other condition (a new object: YAML writes no alias). */
export function anyPath(): RouteMatch {
  return { path: { type: 'PathPrefix', value: '/' } };
}

/**
 * The match of one class: the class header equal to the class's name. `Exact` is the header
 * match every implementation must support, and it compares values case-sensitively (header
 * names are compared in any case): `x-priority: HIGH` is not class `high`.
 */
export function classMatch(plan: MeshPlan, className: string): RouteMatch {
  return {
    ...anyPath(),
    headers: [
      {
        type: 'Exact',
        name: plan.header,
        value: checkHeaderValue(className, `class "${className}"`),
      },
    ],
  };
}

/**
 * The filter that makes the class header say `className`, whatever the client sent: `set`
 * replaces every value of the header, so no `remove` is needed — and none is written, since the
 * API leaves the order of `set` and `remove` inside one filter to the implementation (and a second
 * RequestHeaderModifier in the same rule is not allowed).
 */
export function setClassHeader(plan: MeshPlan, className: string) {
  return {
    type: 'RequestHeaderModifier',
    requestHeaderModifier: {
      set: [{ name: plan.header, value: checkHeaderValue(className, `class "${className}"`) }],
    },
  };
}

/** An HTTPRoute object, labelled with the service it routes to. */
export function httpRoute(
  name: string,
  namespace: string,
  app: string,
  spec: Record<string, unknown>,
  annotations?: Readonly<Record<string, string>>,
): KubernetesObject {
  return {
    apiVersion: GATEWAY_API_VERSION,
    kind: 'HTTPRoute',
    metadata: objectMeta(name, namespace, {
      app,
      ...(annotations !== undefined && { annotations }),
    }),
    spec,
  };
}

/** The per-try timeout of a hop as a Gateway API duration, if it has one. */
export function perTryTimeout(hop: ClassHop): string | undefined {
  return hop.perTryTimeoutMs === undefined ? undefined : gatewayDuration(hop.perTryTimeoutMs);
}

/** The calls into one upstream, as every caller makes them: what a route attached to it carries. */
export interface UpstreamHops {
  readonly service: string;
  /** Per class, highest first. */
  readonly classes: readonly ClassHop[];
  /** A request with no class or an unknown one. */
  readonly unclassified: ClassHop;
}

/**
 * The hops into every service that has callers, in plan order. A route attached to a Service
 * applies to every caller, so the callers must agree on each class's policy there; they do for
 * every plan `meshPlan` makes (the limit is the upstream's own k, the timeout its class's).
 * @throws RangeError when two callers of a service would call it with different policies.
 */
export function upstreamHops(plan: MeshPlan): UpstreamHops[] {
  const found = new Map<string, { caller: string; hops: UpstreamHops }>();
  for (const caller of plan.services) {
    for (const upstream of caller.upstreams) {
      const hops: UpstreamHops = {
        service: upstream.service,
        classes: upstream.classes,
        unclassified: upstream.unclassified,
      };
      const seen = found.get(upstream.service);
      if (seen === undefined) {
        found.set(upstream.service, { caller: caller.name, hops });
      } else if (JSON.stringify(seen.hops) !== JSON.stringify(hops)) {
        throw new InvalidArgumentError(
          `"${seen.caller}" and "${caller.name}" call "${upstream.service}" with different retry policies; a route attached to a Service applies to every caller`,
        );
      }
    }
  }
  return plan.services.flatMap((service) => {
    const seen = found.get(service.name);
    return seen === undefined ? [] : [seen.hops];
  });
}

/** The hop of a call into `service` for `className` (its `calls`). */
export function callInto(service: ServicePlan, className: string): ClassHop {
  const hop = service.calls.find((c) => c.className === className);
  if (hop === undefined)
    throw new Error(`no call policy for class ${className} of ${service.name}`);
  return hop;
}

// ── Edge rules: first match → Gateway API precedence ─────────────────────────────────────────────

/**
 * The conditions of one Gateway API rule at the edge: a path prefix, maybe a method, and header
 * conditions (an exact value, or presence when `value` is undefined). A conjunction: a request
 * matches when every condition holds.
 */
export interface EdgeRegion {
  /** A path prefix, matched on segment boundaries; `/` for every path. */
  readonly path: string;
  /** Upper case. */
  readonly method?: string;
  /** By lower-case name, in name order. */
  readonly headers: readonly { readonly name: string; readonly value?: string }[];
}

/** One rule of an edge route: its conditions and the class it gives. */
export interface EdgeRouteRule {
  readonly region: EdgeRegion;
  readonly className: string;
}

/** An edge's rules compiled for Gateway API, and the rules that could not be. */
export interface CompiledEdge {
  /** In the order they must be written, before the default rule. */
  readonly rules: readonly EdgeRouteRule[];
  /** The class of a request no rule matches (the final, condition-free rule). */
  readonly defaultClass: string;
  /** The edge rules left out: those comparing a header with a secret (`valueEnv`). */
  readonly skipped: readonly EdgeRulePlan[];
}

/** Whether path prefix `outer` contains every path `inner` does (segment-wise). */
function prefixContains(outer: string, inner: string): boolean {
  return outer === '/' || inner === outer || inner.startsWith(`${outer}/`);
}

/** Whether every request in `inner` is in `outer`. */
function regionContains(outer: EdgeRegion, inner: EdgeRegion): boolean {
  if (!prefixContains(outer.path, inner.path)) return false;
  if (outer.method !== undefined && outer.method !== inner.method) return false;
  return outer.headers.every((condition) => {
    const other = inner.headers.find((h) => h.name === condition.name);
    return (
      other !== undefined && (condition.value === undefined || condition.value === other.value)
    );
  });
}

/** The requests in both regions, or undefined when none is. */
function intersect(a: EdgeRegion, b: EdgeRegion): EdgeRegion | undefined {
  let path: string;
  if (prefixContains(a.path, b.path)) path = b.path;
  else if (prefixContains(b.path, a.path)) path = a.path;
  else return undefined;
  if (a.method !== undefined && b.method !== undefined && a.method !== b.method) return undefined;
  const method = a.method ?? b.method;
  const headers = new Map<string, string | undefined>();
  for (const condition of [...a.headers, ...b.headers]) {
    const seen = headers.get(condition.name);
    if (!headers.has(condition.name) || seen === undefined) {
      headers.set(condition.name, condition.value);
    } else if (condition.value !== undefined && condition.value !== seen) {
      return undefined;
    }
  }
  return {
    path,
    ...(method !== undefined && { method }),
    headers: [...headers.keys()].sort().map((name) => ({
      name,
      ...(headers.get(name) !== undefined && { value: headers.get(name) }),
    })),
  };
}

const regionKey = (r: EdgeRegion) => JSON.stringify(r);
/** The most distinct intersections an edge's rules may have (far more than one route can hold). */
const MAX_REGIONS = 256;

/**
 * Gateway API's precedence of a rule (higher first): the longer path prefix, then a method match,
 * then more header matches. Rules of one route that tie are taken in list order.
 */
function precedence(r: EdgeRegion): readonly number[] {
  return [r.path.length, r.method === undefined ? 0 : 1, r.headers.length];
}

function comparePrecedence(a: EdgeRegion, b: EdgeRegion): number {
  const [pa, pb] = [precedence(a), precedence(b)];
  for (let i = 0; i < pa.length; i++) {
    const d = (pb[i] as number) - (pa[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/** The rule Gateway API picks among `rules` for every request in `region` (then the default). */
function pickedClass(
  rules: readonly EdgeRouteRule[],
  region: EdgeRegion,
  fallback: string,
): string {
  let best: EdgeRouteRule | undefined;
  for (const rule of rules) {
    if (!regionContains(rule.region, region)) continue;
    if (best === undefined || comparePrecedence(rule.region, best.region) < 0) best = rule;
  }
  return best?.className ?? fallback;
}

function regionOfRule(rule: EdgeRulePlan, what: string): EdgeRegion {
  const path = rule.path === undefined ? '/' : rule.path.replace(/\/+$/, '') || '/';
  if (/\/\/|\/\.\.?(\/|$)|%2f/i.test(path)) {
    throw new InvalidArgumentError(
      `${what}: path "${rule.path}" has '//', '/./', '/../' or '%2F', which HTTPRoute paths may not`,
    );
  }
  const method = rule.method?.toUpperCase();
  if (method !== undefined && !ROUTE_METHODS.has(method)) {
    throw new InvalidArgumentError(
      `${what}: method "${rule.method}" is not one an HTTPRoute can match (${[...ROUTE_METHODS].join(', ')})`,
    );
  }
  return {
    path,
    ...(method !== undefined && { method }),
    headers:
      rule.header === undefined
        ? []
        : [
            {
              name: rule.header,
              ...(rule.value !== undefined && {
                value: checkHeaderValue(rule.value, `${what}: value`),
              }),
            },
          ],
  };
}

/**
 * Compiles an edge's rules, which the first match decides (as in difftry's sidecar and Envoy),
 * into Gateway API rules, which precedence decides: across the rules, the longest path prefix
 * wins, then a method match, then the most header matches, and only ties go by list order. A
 * later, more specific rule would otherwise take requests an earlier rule should keep.
 *
 * Every request that matches the same set of edge rules is in the intersection of those rules,
 * and that intersection out-ranks (or, listed first, ties with) every other rule it is in. So the
 * compilation adds an intersection rule, carrying the class the first match gives, wherever
 * precedence alone would pick another class; then drops each added rule that is not needed.
 * The result gives every request exactly the class the first matching edge rule gives.
 * @throws RangeError when the edge needs more rules than one HTTPRoute holds, or a rule cannot be
 *   an HTTPRoute match (a method outside the API's list, a path with `//`).
 */
export function compileEdgeRules(service: ServicePlan): CompiledEdge {
  const skipped = service.edgeRules.filter((rule) => rule.valueEnv !== undefined);
  const rules = service.edgeRules
    .map((rule, i) => ({ rule, i }))
    .filter(({ rule }) => rule.valueEnv === undefined)
    .map(({ rule, i }) => ({
      region: regionOfRule(rule, `${service.name}: edge rule ${i + 1}`),
      className: rule.className,
    }));
  const firstMatch = (region: EdgeRegion): string =>
    rules.find((rule) => regionContains(rule.region, region))?.className ?? service.edgeDefault;

  // Every non-empty intersection of rules, and every path: where the first match can change.
  const closure = new Map<string, EdgeRegion>(rules.map((r) => [regionKey(r.region), r.region]));
  for (let grown = true; grown; ) {
    grown = false;
    const regions = [...closure.values()];
    for (const a of regions) {
      for (const b of regions) {
        const both = intersect(a, b);
        if (both === undefined || closure.has(regionKey(both))) continue;
        closure.set(regionKey(both), both);
        grown = true;
      }
    }
    if (closure.size > MAX_REGIONS) {
      throw new InvalidArgumentError(
        `${service.name}: its edge rules overlap in more than ${MAX_REGIONS} ways; merge some`,
      );
    }
  }
  const universe: EdgeRegion = { path: '/', headers: [] };
  const checkpoints = [...closure.values(), universe];
  const defaultClass = firstMatch(universe);
  const wrong = (list: readonly EdgeRouteRule[]) =>
    checkpoints.filter((region) => pickedClass(list, region, defaultClass) !== firstMatch(region));

  // The edge rules as written (each with the class the first match gives its requests, which is
  // an earlier rule's when this one is shadowed), then every intersection that precedence would
  // get wrong, with the first match's class. Once listed, an intersection is right for its own
  // requests: it out-ranks every other rule they match but one with the same conditions, or the
  // same path, method and header names with fewer exact values — listed after it. Adding rules
  // can make another intersection wrong, so this repeats; it ends, each checkpoint being added
  // at most once.
  const originals: EdgeRouteRule[] = rules
    .filter((r, i) => rules.findIndex((s) => regionKey(s.region) === regionKey(r.region)) === i)
    .map((r) => ({ region: r.region, className: firstMatch(r.region) }));
  let compiled = originals;
  for (let missing = wrong(compiled); missing.length > 0; missing = wrong(compiled)) {
    if (compiled.length > originals.length + checkpoints.length) {
      throw new Error(`compileEdgeRules: the edge rules of ${service.name} did not settle`);
    }
    const list = [
      ...missing.map((region) => ({ region, className: firstMatch(region) })),
      ...compiled,
    ];
    compiled = [...list].sort(
      (a, b) =>
        comparePrecedence(a.region, b.region) ||
        exactCount(b.region) - exactCount(a.region) ||
        list.indexOf(a) - list.indexOf(b),
    );
  }
  // Drop each added rule the others make unneeded (the edge's own rules stay, to be recognised).
  for (const rule of compiled.filter((r) => !originals.includes(r))) {
    const without = compiled.filter((r) => r !== rule);
    if (wrong(without).length === 0) compiled = without;
  }
  // A rule matching every request is the default rule itself.
  compiled = compiled.filter((r) => regionKey(r.region) !== regionKey(universe));
  if (compiled.length + 1 > MAX_RULES_PER_ROUTE) {
    throw new InvalidArgumentError(
      `${service.name}: its edge rules need ${compiled.length + 1} HTTPRoute rules, more than the ${MAX_RULES_PER_ROUTE} one route may have; merge some`,
    );
  }
  return { rules: compiled, defaultClass, skipped };
}

function exactCount(r: EdgeRegion): number {
  return r.headers.filter((h) => h.value !== undefined).length;
}

/**
 * An edge region as an HTTPRoute match. A header that only has to be present becomes a
 * `RegularExpression` match of any value, the one way the API has to say it (its support is
 * implementation-specific).
 */
export function edgeMatch(region: EdgeRegion): RouteMatch {
  return {
    path: { type: 'PathPrefix', value: region.path },
    ...(region.method !== undefined && { method: region.method }),
    ...(region.headers.length > 0 && {
      headers: region.headers.map((h) =>
        h.value === undefined
          ? { type: 'RegularExpression' as const, name: h.name, value: '.*' }
          : { type: 'Exact' as const, name: h.name, value: h.value },
      ),
    }),
  };
}
