import type { z } from 'zod';
import { ROUTE_SUM_TOLERANCE } from '../model/network/routeSumTolerance.js';
import { closedServices } from '../model/network/structure.js';
import { type CustomIssue, reportIssue } from './customIssue.js';
import { checkEdgeRules, classKey } from './edgeSchema.js';
import { formatNumber, formatValue } from './formatValue.js';
import type { NetworkSpec, ServiceSpec } from './schema.js';

/**
 * Checks the rules of a network file that span fields, as a zod refinement of the network
 * schema (so its problems come out in the same pass and format as the schema's own):
 *
 * - class names and service names are unique;
 * - `arrivals`, `retries` and `timeouts` keys and the `class` of routes and calls name declared classes;
 * - the `to` of routes and calls names a declared service;
 * - a service has routes or calls, and the network does not mix routing and calling services;
 * - calls form a DAG (routes may have cycles);
 * - at each service, the probabilities of the routes that apply to a class (a route without
 *   `class` applies to all) sum to at most 1, within {@link ROUTE_SUM_TOLERANCE};
 * - no class is routed into a set of services it can never leave (ρ(F) = 1, where the flow
 *   equations have no solution);
 * - some service has a positive arrival rate.
 *
 * It runs on a value whose types are right but whose ranges may not be (zod still reports those),
 * so it never assumes more than the types.
 */
export function checkNetworkRules(network: NetworkSpec, ctx: z.RefinementCtx): void {
  const report = (issue: CustomIssue) => reportIssue(ctx, issue);
  const classNames = network.classes.map((c) => c.name);
  const serviceNames = network.services.map((s) => s.name);
  // A class header is read in any case: `High` and `high` would be one class (classKey).
  checkUnique(classNames, 'classes', 'class', report, classKey);
  checkUnique(serviceNames, 'services', 'service', report);

  const declaredClass = declared('class', classNames);
  const declaredService = declared('service', serviceNames);
  network.services.forEach((service, i) => {
    const at = ['services', i] as const;
    for (const field of ['arrivals', 'retries', 'timeouts'] as const) {
      for (const className of Object.keys(service[field] ?? {})) {
        declaredClass.check([...at, field, className], className, report, 'key');
      }
    }
    for (const { path, edge } of outgoingEdges(service)) {
      declaredService.check([...at, ...path, 'to'], edge.to, report);
      if (edge.class !== undefined) {
        declaredClass.check([...at, ...path, 'class'], edge.class, report);
      }
    }
    checkRouteSums(service, i, classNames, report);
    checkBranchSum(service, i, report);
  });

  if (network.edge !== undefined) {
    checkEdgeRules(
      network.edge,
      ['edge'],
      (path, name) => {
        if (name !== undefined) declaredClass.check(path, name, report);
      },
      report,
    );
  }

  checkOneMode(network.services, report);
  checkRoutesCanLeave(network.services, classNames, report);
  checkCallsAcyclic(network.services, report);
  checkSomeArrivals(network.services, report);
}

type Report = (issue: CustomIssue) => void;

/**
 * Every edge leaving a service with its path inside the service: routes, calls, and the calls of
 * its branches.
 */
export function outgoingEdges(
  service: ServiceSpec,
): { path: PropertyKey[]; edge: { to: string; class?: string | undefined } }[] {
  const edges: { path: PropertyKey[]; edge: { to: string; class?: string | undefined } }[] = [];
  for (const [j, edge] of (service.routes ?? []).entries())
    edges.push({ path: ['routes', j], edge });
  for (const [j, edge] of (service.calls ?? []).entries()) edges.push({ path: ['calls', j], edge });
  for (const [b, branch] of (service.branches ?? []).entries()) {
    for (const [j, edge] of branch.calls.entries()) {
      edges.push({ path: ['branches', b, 'calls', j], edge });
    }
  }
  return edges;
}

function checkBranchSum(service: ServiceSpec, index: number, report: Report): void {
  const branches = service.branches ?? [];
  if (branches.length === 0 || branches.some((b) => !(b.p >= 0 && b.p <= 1))) return;
  const sum = branches.reduce((total, b) => total + b.p, 0);
  if (sum <= 1 + ROUTE_SUM_TOLERANCE) return;
  report({
    path: ['services', index, 'branches'],
    problem: `branch probabilities sum to ${formatNumber(sum)}, expected at most 1`,
    expected: 'branch probabilities summing to at most 1',
    at: 'key',
  });
}

/** The two ways a service passes requests on: probabilistic routes or a call graph. */
type EdgeField = 'routes' | 'calls';

function checkUnique(
  names: readonly string[],
  list: string,
  kind: string,
  report: Report,
  key: (name: string) => string = (name) => name,
): void {
  const firstIndex = new Map<string, number>();
  names.forEach((name, i) => {
    const first = firstIndex.get(key(name));
    if (first === undefined) {
      firstIndex.set(key(name), i);
      return;
    }
    const inCase = names[first] === name ? '' : ` (${formatValue(names[first])} in another case)`;
    report({
      path: [list, i, 'name'],
      problem: `duplicate ${kind} name ${formatValue(name)}${inCase}, first declared at ${list}[${first}]`,
      expected: `a unique ${kind} name`,
    });
  });
}

/** A check that a reference names one of the declared names, listing them when it does not. */
function declared(kind: string, names: readonly string[]) {
  const known = new Set(names);
  const expected = `a declared ${kind} (${names.join(', ')})`;
  return {
    check(path: PropertyKey[], name: string, report: Report, at?: 'key'): void {
      // With nothing declared, the empty list is the problem, and it is reported as such.
      if (known.has(name) || known.size === 0) return;
      const problem = `expected ${expected}, got ${formatValue(name)}`;
      report(at === undefined ? { path, problem, expected } : { path, problem, expected, at });
    },
  };
}

function checkRouteSums(
  service: ServiceSpec,
  index: number,
  classNames: readonly string[],
  report: Report,
): void {
  const routes = service.routes ?? [];
  // An out-of-range probability is already reported where it is written; a sum built on it
  // would only repeat that problem further from its cause.
  if (routes.length === 0 || routes.some((r) => !(r.p >= 0 && r.p <= 1))) return;
  for (const className of new Set(classNames)) {
    let sum = 0;
    for (const route of routes) {
      if (route.class === undefined || route.class === className) sum += route.p;
    }
    if (sum <= 1 + ROUTE_SUM_TOLERANCE) continue;
    report({
      path: ['services', index, 'routes'],
      problem: `route probabilities for class ${className} sum to ${formatNumber(sum)}, expected at most 1`,
      expected: 'route probabilities summing to at most 1',
      at: 'key',
    });
  }
}

/**
 * Every class can leave wherever it is routed: a set of services whose routes for a class sum to
 * 1 and stay inside makes ρ(F) = 1 (reported once, at the first such service's routes). Routes
 * that name an unknown service or a probability out of range are reported where they stand.
 */
function checkRoutesCanLeave(
  services: readonly ServiceSpec[],
  classNames: readonly string[],
  report: Report,
): void {
  const index = new Map(services.map((s, i) => [s.name, i]));
  const routes = services.map((s) => s.routes ?? []);
  const valid = routes.every((list) => list.every((r) => index.has(r.to) && r.p >= 0 && r.p <= 1));
  if (!valid || routes.every((list) => list.length === 0)) return;
  for (const className of new Set(classNames)) {
    const rows = routes.map((list) =>
      list
        .filter((r) => r.class === undefined || r.class === className)
        .map((r) => ({ to: index.get(r.to) as number, p: r.p })),
    );
    const closed = closedServices(rows);
    const [first] = closed;
    if (first === undefined) continue;
    const names = closed.map((i) => services[i]?.name).join(', ');
    report({
      path: ['services', first, 'routes'],
      problem:
        `class ${className}: requests routed into ${names} can never leave (their route ` +
        'probabilities sum to 1 around a cycle), so ρ(F) = 1; the standard equations need ρ(F) < 1',
      expected: 'routes from which every class can leave the network',
      at: 'key',
    });
    return;
  }
}

function checkOneMode(services: readonly ServiceSpec[], report: Report): void {
  const calling = (s: ServiceSpec) => s.calls !== undefined || s.branches !== undefined;
  const firstRouting = services.findIndex((s) => s.routes !== undefined);
  const firstCalling = services.findIndex(calling);
  if (firstRouting < 0 || firstCalling < 0) return;
  // Blame whichever mode appears second: the first one set the style of the file.
  const [first, firstMode, secondMode]: [number, EdgeField, EdgeField] =
    firstRouting < firstCalling
      ? [firstRouting, 'routes', 'calls']
      : [firstCalling, 'calls', 'routes'];
  const has = (s: ServiceSpec, mode: EdgeField) =>
    mode === 'routes' ? s.routes !== undefined : calling(s);
  services.forEach((service, i) => {
    if (!has(service, secondMode) || has(service, firstMode)) return;
    report({
      path: ['services', i, secondMode],
      problem: `a network uses routes or calls, not both: services[${first}] (${services[first]?.name}) has ${firstMode}, this service has ${secondMode}`,
      expected: `${firstMode}, as at services[${first}]`,
      at: 'key',
    });
  });
}

function checkCallsAcyclic(services: readonly ServiceSpec[], report: Report): void {
  const indexOf = new Map<string, number>();
  services.forEach((s, i) => {
    if (!indexOf.has(s.name)) indexOf.set(s.name, i);
  });
  const state: ('new' | 'open' | 'done')[] = services.map(() => 'new');
  const callsOf = (i: number) => {
    const service = services[i];
    return service ? outgoingEdges(service).filter((e) => e.path[0] !== 'routes') : [];
  };
  // Depth-first with an explicit stack (a 5,000-deep chain would overflow the call stack): each
  // frame is a service and the index of its next call to look at; `path` is the open chain.
  const path: number[] = [];
  const frames: { service: number; calls: ReturnType<typeof callsOf>; next: number }[] = [];
  const open = (i: number) => {
    state[i] = 'open';
    path.push(i);
    frames.push({ service: i, calls: callsOf(i), next: 0 });
  };
  services.forEach((_, root) => {
    if (state[root] !== 'new') return;
    open(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as (typeof frames)[number];
      if (frame.next >= frame.calls.length) {
        frames.pop();
        path.pop();
        state[frame.service] = 'done';
        continue;
      }
      const { path: where, edge: call } = frame.calls[frame.next++] as (typeof frame.calls)[number];
      const child = indexOf.get(call.to);
      if (child === undefined) continue;
      if (state[child] === 'open') {
        const cycle = [...path.slice(path.indexOf(child)), child].map((k) => services[k]?.name);
        report({
          path: ['services', frame.service, ...where, 'to'],
          problem: `calls form a cycle ${cycle.join(' → ')}, expected calls without cycles (a DAG)`,
          expected: 'calls without cycles (a DAG)',
        });
      } else if (state[child] === 'new') open(child);
    }
  });
}

function checkSomeArrivals(services: readonly ServiceSpec[], report: Report): void {
  // An empty list is already reported as such.
  if (services.length === 0) return;
  if (services.some((s) => Object.values(s.arrivals).some((rate) => rate > 0))) return;
  report({
    path: ['services'],
    problem:
      'no service has a positive arrival rate, expected arrivals > 0 for some class somewhere',
    expected: 'a positive arrival rate at some service',
    at: 'key',
  });
}
