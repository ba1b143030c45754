import { describe, expect, it } from 'vitest';
import { gatewayDuration } from '../../../src/spec/meshes/durations.js';
import { kubernetesNames } from '../../../src/spec/meshes/kubernetesNames.js';
import { linkerdManifest, linkerdRetryAnnotations } from '../../../src/spec/meshes/linkerd.js';
import { type ClassHop, type MeshPlan, meshPlan } from '../../../src/spec/meshes/meshPlan.js';
import { parseNetwork } from '../../../src/spec/parseNetwork.js';
import {
  type HttpRequest,
  type HttpRouteDoc,
  headersAfter,
  routesOf,
  type Selected,
  selectRule,
} from './httpRouteMatch.js';
import { kubernetesProblems } from './kubernetesSchema.js';
import { example, NETWORKS } from './meshNetworks.js';

// The generated Linkerd routes, checked two ways: strictly against the Gateway API CRDs' schemas,
// and by what Linkerd would do with them — the route each request takes under Gateway API
// precedence across the routes of a Service (test/spec/meshes/httpRouteMatch.ts), and the retry
// policy Linkerd's policy controller reads from that route's annotations (below).

interface LinkerdRetry {
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
function linkerdRetry(
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

const retried = (policy: LinkerdRetry | undefined, status: number) =>
  (policy?.statuses ?? []).some(([a, b]) => status >= a && status <= b);

const request = (headers: Record<string, string>): HttpRequest => ({
  path: '/any/path',
  method: 'GET',
  headers,
});

function take(routes: readonly HttpRouteDoc[], req: HttpRequest): Selected {
  const selected = selectRule(routes, req);
  if (selected === undefined) throw new Error(`no route for ${JSON.stringify(req)}`);
  return selected;
}

/** What Linkerd does with the route a request takes, against a hop's policy. */
function expectHop(plan: MeshPlan, selected: Selected, hop: ClassHop): void {
  const annotations = selected.route.metadata.annotations ?? {};
  // Every route says its limit: none falls to Linkerd's default of one retry.
  expect(annotations['retry.linkerd.io/limit']).toBe(String(hop.retries));
  const policy = linkerdRetry(annotations);
  const timeout =
    hop.perTryTimeoutMs === undefined ? undefined : gatewayDuration(hop.perTryTimeoutMs);
  if (hop.retries === 0) {
    // No policy of its own: no retry (the Services carry no retry annotations).
    expect(policy).toBeUndefined();
    expect(annotations['timeout.linkerd.io/request']).toBe(timeout);
    return;
  }
  expect(policy?.limit).toBe(hop.retries);
  expect(policy?.timeout).toBe(timeout);
  for (const status of plan.retryStatuses) expect(retried(policy, status)).toBe(true);
  expect(retried(policy, 500)).toBe(false);
}

describe('difftry mesh linkerd: the generated Linkerd routes', () => {
  it('pass the Gateway API CRDs’ schemas strictly, every field known, for 22 networks', () => {
    let objects = 0;
    for (const [, network] of NETWORKS) {
      const plan = meshPlan(network);
      const manifest = linkerdManifest(plan, { namespace: 'shop' });
      for (const object of manifest.objects) {
        expect(kubernetesProblems(object)).toEqual([]);
        objects++;
      }
    }
    // A route per class and one unclassified, for each of the 135 services with callers.
    expect(objects).toBe(523);
  });

  it.each(NETWORKS)(
    '%s: the route each class takes carries its retries at that hop; none, an unknown or an upper-case class gets the default’s',
    (_, network) => {
      const plan = meshPlan(network);
      const { objects, limits } = linkerdManifest(plan);
      const names = kubernetesNames(plan);
      for (const object of objects as unknown as HttpRouteDoc[]) {
        // Linkerd reads retries and timeouts from annotations only: no rule carries its own.
        for (const rule of object.spec.rules ?? []) {
          expect(rule.retry).toBeUndefined();
          expect(rule.timeouts).toBeUndefined();
        }
      }
      for (const service of plan.services) {
        for (const upstream of service.upstreams) {
          const name = names.get(upstream.service) as string;
          const routes = routesOf(objects, { kind: 'Service', name });
          expect(routes).toHaveLength(plan.classes.length + 1);
          for (const hop of upstream.classes) {
            const req = request({ [plan.header]: hop.className });
            const selected = take(routes, req);
            expectHop(plan, selected, hop);
            expect(selected.rule.backendRefs).toEqual([{ name, port: 80 }]);
            expect(headersAfter(selected.rule, req.headers)[plan.header]).toBe(hop.className);
          }
          const unknown = [
            {},
            { [plan.header]: 'platinum' },
            ...plan.classes.map((c) => ({ [plan.header]: c.toUpperCase() })),
          ];
          for (const headers of unknown) {
            const selected = take(routes, request(headers));
            expectHop(plan, selected, upstream.unclassified);
            expect(headersAfter(selected.rule, headers)[plan.header]).toBe(plan.defaultClass);
          }
        }
      }
      // Linkerd has no ingress: nothing is attached to a Gateway, and the edge is in the limits.
      expect(limits.filter((l) => l.startsWith('No edge'))).toHaveLength(1);
      expect(
        (objects as unknown as HttpRouteDoc[]).every((o) =>
          o.spec.parentRefs.every((ref) => ref.kind === 'Service' && ref.group === ''),
        ),
      ).toBe(true);
    },
  );

  it('writes the per-try timeout, and k = 0 as a route with no retry policy of its own', () => {
    const network = parseNetwork(
      [
        'classes: [{ name: gold, retries: 4, timeoutMs: 250 }, { name: bronze, retries: 0, timeoutMs: 1500 }]',
        'services:',
        '  - { name: web, capacity: 10, queue: 8, arrivals: { gold: 1, bronze: 5 }, calls: [{ to: db }] }',
        '  - { name: db, capacity: 10, queue: 4 }',
      ].join('\n'),
      'timeouts.yaml',
    );
    const plan = meshPlan(network);
    const { objects, limits } = linkerdManifest(plan);
    expect(objects.map((o) => o.metadata.name)).toEqual([
      'db-gold',
      'db-bronze',
      'db-unclassified',
    ]);
    expect(objects.map((o) => o.metadata.annotations)).toEqual([
      {
        'retry.linkerd.io/http': '429,503',
        'retry.linkerd.io/limit': '4',
        'retry.linkerd.io/timeout': '250ms',
      },
      { 'retry.linkerd.io/limit': '0', 'timeout.linkerd.io/request': '1500ms' },
      { 'retry.linkerd.io/limit': '0', 'timeout.linkerd.io/request': '1500ms' },
    ]);
    expect(linkerdRetry(objects[1]?.metadata.annotations)).toBeUndefined();
    // The edge (web) gets no route: Linkerd has no ingress, and the limits say what to do.
    expect(objects.some((o) => o.metadata.labels.app === 'web')).toBe(false);
    expect(limits.some((l) => l.startsWith('No edge') && l.includes('web'))).toBe(true);
  });

  it('lists each status once, in order', () => {
    const plan = { ...meshPlan(example('hotel')), retryStatuses: [503, 429, 503, 502] };
    const hop = plan.services[0]?.upstreams[0]?.classes[0] as ClassHop;
    expect(linkerdRetryAnnotations(plan, hop)['retry.linkerd.io/http']).toBe('429,502,503');
  });

  it('refuses two classes that would share a route name', () => {
    const network = parseNetwork(
      [
        'classes: [{ name: High, retries: 3 }, { name: high, retries: 1 }]',
        'services:',
        '  - { name: web, capacity: 10, queue: 8, arrivals: { High: 1 }, calls: [{ to: db }] }',
        '  - { name: db, capacity: 10, queue: 4 }',
      ].join('\n'),
      'clash.yaml',
    );
    expect(() => linkerdManifest(meshPlan(network))).toThrow(
      /class "High" of db and class "high" of db would both be the HTTPRoute "db-high"/,
    );
  });
});
