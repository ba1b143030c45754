// Gateway API route matching, simulated for the tests, from the HTTPRoute API's own rules
// (gateway.networking.k8s.io/v1, HTTPRouteRule.matches and HTTPHeaderMatch):
// - a match holds when its path, method, every header and every query parameter hold; header
//   names compare in any case, `Exact` values exactly (case-sensitively); `PathPrefix` matches
//   whole path segments and ignores a trailing `/`;
// - across every rule of every route attached to one parent, the match with the exact path wins,
//   then the longest path prefix, then a method match, then the most header matches, then the
//   most query parameter matches; then the oldest route, then "namespace/name" in alphabetical
//   order; inside one route, the first rule in list order.
// Generated routes carry no creation time, so a tie between two routes is reported as ambiguous:
// the generators must never rely on one.

/** An HTTP request as the matcher sees it (header names in lower case). */
export interface HttpRequest {
  readonly path: string;
  readonly method: string;
  readonly host?: string;
  readonly headers: Readonly<Record<string, string>>;
}

interface HeaderMatch {
  readonly type?: 'Exact' | 'RegularExpression';
  readonly name: string;
  readonly value: string;
}
interface RuleMatch {
  readonly path?: { readonly type?: 'Exact' | 'PathPrefix'; readonly value?: string };
  readonly method?: string;
  readonly headers?: readonly HeaderMatch[];
  readonly queryParams?: readonly unknown[];
}
interface HeaderModifier {
  readonly set?: readonly { readonly name: string; readonly value: string }[];
  readonly add?: readonly { readonly name: string; readonly value: string }[];
  readonly remove?: readonly string[];
}
/** The parts of an HTTPRoute rule the tests read. */
export interface RouteRule {
  readonly matches?: readonly RuleMatch[];
  readonly filters?: readonly {
    readonly type: string;
    readonly requestHeaderModifier?: HeaderModifier;
  }[];
  readonly backendRefs?: readonly { readonly name: string; readonly port?: number }[];
  readonly retry?: {
    readonly attempts?: number;
    readonly codes?: readonly number[];
    readonly backoff?: string;
  };
  readonly timeouts?: { readonly request?: string; readonly backendRequest?: string };
}
/** The parts of an HTTPRoute the tests read. */
export interface HttpRouteDoc {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec: {
    readonly parentRefs: readonly {
      readonly group?: string;
      readonly kind?: string;
      readonly name: string;
      readonly namespace?: string;
      readonly port?: number;
    }[];
    readonly hostnames?: readonly string[];
    readonly rules?: readonly RouteRule[];
  };
}

/** The rule a request takes: the route, the rule and its index there. */
export interface Selected {
  readonly route: HttpRouteDoc;
  readonly rule: RouteRule;
  readonly ruleIndex: number;
}

function pathHolds(match: RuleMatch, path: string): boolean {
  const type = match.path?.type ?? 'PathPrefix';
  const value = match.path?.value ?? '/';
  if (type === 'Exact') return path === value;
  const prefix = value.replace(/\/+$/, '');
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
}

function headerHolds(match: HeaderMatch, headers: Readonly<Record<string, string>>): boolean {
  const value = headers[match.name.toLowerCase()];
  if (value === undefined) return false;
  return (match.type ?? 'Exact') === 'Exact'
    ? value === match.value
    : new RegExp(`^(?:${match.value})$`).test(value);
}

function matchHolds(match: RuleMatch, request: HttpRequest): boolean {
  return (
    pathHolds(match, request.path) &&
    (match.method === undefined || match.method === request.method) &&
    (match.headers ?? []).every((h) => headerHolds(h, request.headers)) &&
    (match.queryParams ?? []).length === 0
  );
}

function hostHolds(route: HttpRouteDoc, host: string | undefined): boolean {
  const hostnames = route.spec.hostnames ?? [];
  if (hostnames.length === 0) return true;
  if (host === undefined) return false;
  return hostnames.some((name) =>
    name.startsWith('*.') ? host.endsWith(name.slice(1)) : host === name,
  );
}

/** The precedence of a match, higher first, compared element by element. */
function rank(match: RuleMatch): number[] {
  const exact = (match.path?.type ?? 'PathPrefix') === 'Exact';
  const length = (match.path?.value ?? '/').length;
  return [
    exact ? 1 : 0,
    exact ? 0 : length,
    match.method === undefined ? 0 : 1,
    (match.headers ?? []).length,
    (match.queryParams ?? []).length,
  ];
}

function compareRank(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (b[i] as number) - (a[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The rule Gateway API gives `request` among `routes` (all attached to the same parent), or
 * undefined when none matches (a 404).
 * @throws Error when the best matches of two routes tie: only creation times would decide.
 */
export function selectRule(
  routes: readonly HttpRouteDoc[],
  request: HttpRequest,
): Selected | undefined {
  const candidates: { selected: Selected; rank: number[] }[] = [];
  for (const route of routes) {
    if (!hostHolds(route, request.host)) continue;
    (route.spec.rules ?? []).forEach((rule, ruleIndex) => {
      const matches = rule.matches?.length ? rule.matches : [{}];
      const held = matches.filter((m) => matchHolds(m, request));
      if (held.length === 0) return;
      const best = held.map(rank).sort(compareRank)[0] as number[];
      candidates.push({ selected: { route, rule, ruleIndex }, rank: best });
    });
  }
  // Stable: inside one route, list order decides ties.
  candidates.sort((a, b) => compareRank(a.rank, b.rank));
  const first = candidates[0];
  if (first === undefined) return undefined;
  const rival = candidates.find(
    (c) => c.selected.route !== first.selected.route && compareRank(c.rank, first.rank) === 0,
  );
  if (rival !== undefined) {
    throw new Error(
      `ambiguous: ${first.selected.route.metadata.name} and ${rival.selected.route.metadata.name} tie for ${JSON.stringify(request)}`,
    );
  }
  return first.selected;
}

/**
 * The request headers after a rule's RequestHeaderModifier filters (lower-case names). Inside one
 * filter the API does not order `remove`, `set` and `add`; the generators write `set` alone.
 */
export function headersAfter(
  rule: RouteRule,
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = { ...headers };
  for (const filter of rule.filters ?? []) {
    const modifier = filter.requestHeaderModifier;
    if (filter.type !== 'RequestHeaderModifier' || modifier === undefined) continue;
    for (const name of modifier.remove ?? []) delete out[name.toLowerCase()];
    for (const { name, value } of modifier.set ?? []) out[name.toLowerCase()] = value;
    for (const { name, value } of modifier.add ?? []) {
      const key = name.toLowerCase();
      out[key] = out[key] === undefined ? value : `${out[key]},${value}`;
    }
  }
  return out;
}

/** The routes of `objects` attached to a parent: a Service (`kind: Service`) or a Gateway. */
export function routesOf(
  objects: readonly unknown[],
  parent: { readonly kind: 'Service' | 'Gateway'; readonly name: string },
): HttpRouteDoc[] {
  return (objects as HttpRouteDoc[]).filter(
    (o) =>
      o.kind === 'HTTPRoute' &&
      o.spec.parentRefs.some((ref) => ref.kind === parent.kind && ref.name === parent.name),
  );
}
