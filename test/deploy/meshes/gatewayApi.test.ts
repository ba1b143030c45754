import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../../src/config/parseNetwork.js';
import type { EdgeRuleConfig } from '../../../src/config/sidecarSchema.js';
import { gatewayDuration } from '../../../src/deploy/durations.js';
import {
  DEFAULT_GATEWAY,
  gatewayApiManifest,
  gatewayBackoffMs,
} from '../../../src/deploy/gatewayApi.js';
import { compileEdgeRules } from '../../../src/deploy/httpRoutes.js';
import { kubernetesNames } from '../../../src/deploy/kubernetesNames.js';
import { type ClassHop, type MeshPlan, meshPlan } from '../../../src/deploy/meshPlan.js';
import { type EdgeRule, edgeClassifier } from '../../../src/mesh/edgeRules.js';
import { takeRule as take } from '../gatewayRule.js';
import {
  type HttpRequest,
  type HttpRouteDoc,
  headersAfter,
  type RouteRule,
  routesOf,
  selectRule,
} from './httpRouteMatch.js';
import { kubernetesProblems } from './kubernetesSchema.js';
import { NETWORKS } from './meshNetworks.js';

// The generated Gateway API objects, checked two ways: strictly against the CRDs' schemas, and by
// what a Gateway API implementation would do with them — the rule each request takes under the
// API's precedence (test/deploy/meshes/httpRouteMatch.ts), for every service, upstream and class.

const request = (headers: Record<string, string>, path = '/any/path'): HttpRequest => ({
  path,
  method: 'GET',
  headers,
});

/** What a rule does with a hop's policy: its retry and per-try timeout. */
function expectHop(plan: MeshPlan, rule: RouteRule, hop: ClassHop): void {
  expect(rule.retry).toEqual({
    attempts: hop.retries,
    codes: plan.retryStatuses,
    backoff: gatewayDuration(gatewayBackoffMs(hop.backoff)),
  });
  expect(rule.timeouts?.backendRequest).toBe(
    hop.perTryTimeoutMs === undefined ? undefined : gatewayDuration(hop.perTryTimeoutMs),
  );
  // A request timeout shorter than the per-try one would be refused; none is written.
  expect(rule.timeouts?.request).toBeUndefined();
}

const edgeNetwork = parseNetwork(
  [
    'classes: [{ name: gold, retries: 4, timeoutMs: 250 }, { name: silver, retries: 2 }, { name: bronze, retries: 0 }]',
    'services:',
    '  - { name: web, capacity: 10, queue: 8, arrivals: { gold: 1, bronze: 5 }, calls: [{ to: db }] }',
    '  - { name: db, capacity: 10, queue: 4, retries: { silver: 1 } }',
  ].join('\n'),
  'edge.yaml',
);

describe('difftry mesh gateway-api: the generated Gateway API objects', () => {
  it('pass the Gateway API CRDs’ schemas strictly, every field known, for 22 networks', () => {
    let objects = 0;
    for (const [, network] of NETWORKS) {
      for (const object of gatewayApiManifest(meshPlan(network), { namespace: 'shop' }).objects) {
        expect(kubernetesProblems(object)).toEqual([]);
        objects++;
      }
    }
    // 22 Gateways, 22 edge routes, and a route for each of the 135 services with callers.
    expect(objects).toBe(179);
  });

  it.each(NETWORKS)(
    '%s: the rule each class takes carries its retries at that hop; none, an unknown or an upper-case class gets the default’s',
    (_, network) => {
      const plan = meshPlan(network);
      const { objects } = gatewayApiManifest(plan);
      const names = kubernetesNames(plan);
      for (const service of plan.services) {
        for (const upstream of service.upstreams) {
          const name = names.get(upstream.service) as string;
          const routes = routesOf(objects, { kind: 'Service', name });
          expect(routes).toHaveLength(1);
          // Every rule retries explicitly: nothing falls to the implementation's default.
          for (const rule of routes[0]?.spec.rules ?? []) {
            expect(rule.retry?.attempts).toBeTypeOf('number');
            expect(rule.backendRefs).toEqual([{ name, port: 80 }]);
          }
          for (const hop of upstream.classes) {
            const req = request({ [plan.header]: hop.className });
            const rule = take(routes, req);
            expectHop(plan, rule, hop);
            expect(headersAfter(rule, req.headers)[plan.header]).toBe(hop.className);
          }
          // Exact is case-sensitive: an upper-case class is not known, like a missing one.
          const unknown = [
            {},
            { [plan.header]: 'platinum' },
            ...plan.classes.map((c) => ({ [plan.header]: c.toUpperCase() })),
          ];
          for (const headers of unknown) {
            const rule = take(routes, request(headers));
            expectHop(plan, rule, upstream.unclassified);
            expect(headersAfter(rule, headers)[plan.header]).toBe(plan.defaultClass);
          }
        }
      }
      // The edge: the client's class header is replaced, whatever it says.
      const edges = plan.services.filter((s) => s.edge);
      expect(edges.length).toBeGreaterThan(0);
      for (const edge of edges) {
        const routes = routesOf(objects, { kind: 'Gateway', name: DEFAULT_GATEWAY });
        for (const headers of [{}, { [plan.header]: plan.classes[0] as string }]) {
          const rule = take(routes, request(headers));
          expect(headersAfter(rule, headers)[plan.header]).toBe(edge.edgeDefault);
          expect(rule.backendRefs).toEqual([{ name: names.get(edge.name), port: 80 }]);
          const hop = edge.calls.find((c) => c.className === edge.edgeDefault) as ClassHop;
          expectHop(plan, rule, hop);
        }
      }
    },
  );

  it('classifies at the edge by the rules in their order, with the edge service’s own limits', () => {
    const plan = meshPlan(edgeNetwork, {
      edgeRules: [
        // A header rule before a path rule: for GET /premium with x-api-key: k1 the first match
        // (gold) differs from what precedence alone would pick (the longer path: silver).
        { header: 'x-api-key', value: 'k1', class: 'gold' },
        { path: '/premium', class: 'silver' },
        { method: 'post', class: 'bronze' },
        { header: 'x-api-key', valueEnv: 'PARTNER_KEY', class: 'gold' },
      ],
    });
    const { objects, limits } = gatewayApiManifest(plan);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Gateway/difftry-gateway',
      'HTTPRoute/web.edge',
      'HTTPRoute/db',
    ]);
    for (const object of objects) expect(kubernetesProblems(object)).toEqual([]);
    const edge = routesOf(objects, { kind: 'Gateway', name: DEFAULT_GATEWAY });
    const web = plan.services[0];
    const classOf = (req: HttpRequest) => {
      const rule = take(edge, req);
      // `set` alone: it replaces the client's value, and its order against `remove` is unset.
      for (const filter of rule.filters ?? []) {
        expect(Object.keys(filter.requestHeaderModifier ?? {})).toEqual(['set']);
      }
      const className = headersAfter(rule, req.headers)['x-priority'] as string;
      expectHop(plan, rule, web?.calls.find((c) => c.className === className) as ClassHop);
      return className;
    };
    const get = (path: string, headers: Record<string, string> = {}) =>
      classOf({ path, method: 'GET', headers });
    expect(get('/premium/x', { 'x-api-key': 'k1', 'x-priority': 'bronze' })).toBe('gold');
    expect(get('/premium/x', { 'x-priority': 'gold' })).toBe('silver');
    expect(get('/premiums', { 'x-priority': 'gold' })).toBe('bronze');
    expect(classOf({ path: '/premium', method: 'POST', headers: {} })).toBe('silver');
    expect(classOf({ path: '/', method: 'POST', headers: {} })).toBe('bronze');
    expect(get('/', { 'x-api-key': 'k2' })).toBe('bronze');
    // The rule on a secret is left out, and said so.
    expect(limits.some((l) => l.includes('$PARTNER_KEY'))).toBe(true);
    // Inside the mesh the caller's class is believed: db's route matches the header.
    const db = routesOf(objects, { kind: 'Service', name: 'db' });
    expect(take(db, request({ 'x-priority': 'silver' })).retry?.attempts).toBe(1);
    expect(take(db, request({ 'x-priority': 'bronze' })).retry?.attempts).toBe(0);
    expect(take(db, request({ 'x-priority': 'gold' })).timeouts?.backendRequest).toBe('250ms');
  });

  it('gives every request the class of the first edge rule it matches (property, against the sidecar’s classifier)', () => {
    const paths = ['/a', '/a/b', '/b', '/'];
    const ruleArb = fc
      .record({
        path: fc.option(fc.constantFrom(...paths), { nil: undefined }),
        method: fc.option(fc.constantFrom('GET', 'POST'), { nil: undefined }),
        header: fc.option(fc.constantFrom('x-k', 'x-j'), { nil: undefined }),
        value: fc.option(fc.constantFrom('v1', 'v2'), { nil: undefined }),
        class: fc.constantFrom('gold', 'silver', 'bronze'),
      })
      .filter((r) => r.path !== undefined || r.method !== undefined || r.header !== undefined)
      .map((r): EdgeRuleConfig => {
        const { value, ...rest } = r;
        const rule = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
        return (r.header !== undefined && value !== undefined
          ? { ...rule, value }
          : rule) as unknown as EdgeRuleConfig;
      });
    const requests: HttpRequest[] = [];
    for (const path of ['/', '/a', '/a/b', '/a/b/c', '/ab', '/b', '/c']) {
      for (const method of ['GET', 'POST', 'PUT']) {
        for (const k of [undefined, 'v1', 'v2', 'v3']) {
          for (const j of [undefined, 'v1', 'v2']) {
            const headers: Record<string, string> = {};
            if (k !== undefined) headers['x-k'] = k;
            if (j !== undefined) headers['x-j'] = j;
            requests.push({ path, method, headers });
          }
        }
      }
    }
    let compiledSets = 0;
    fc.assert(
      fc.property(fc.array(ruleArb, { minLength: 1, maxLength: 5 }), (rules) => {
        const plan = meshPlan(edgeNetwork, { edgeRules: rules });
        const web = plan.services[0];
        if (web === undefined) throw new Error('no web');
        let edge: HttpRouteDoc[];
        try {
          edge = routesOf(gatewayApiManifest(plan).objects, {
            kind: 'Gateway',
            name: DEFAULT_GATEWAY,
          });
        } catch (error) {
          // Too many overlaps for one route is refused, never miscompiled.
          expect(String(error)).toMatch(/more than the 16/);
          return;
        }
        compiledSets++;
        const classify = edgeClassifier(
          web.edgeRules.map(
            (r): EdgeRule => ({
              ...(r.path !== undefined && { path: r.path }),
              ...(r.method !== undefined && { method: r.method }),
              ...(r.header !== undefined && { header: r.header }),
              ...(r.value !== undefined && { values: [r.value] }),
              class: r.className,
            }),
          ),
          web.edgeDefault,
        );
        for (const req of requests) {
          const expected = classify({
            method: req.method,
            path: req.path,
            header: (name) => req.headers[name],
          });
          const rule = take(edge, { ...req, headers: { ...req.headers, 'x-priority': 'gold' } });
          expect(
            headersAfter(rule, req.headers)['x-priority'],
            JSON.stringify({ rules, req }),
          ).toBe(expected);
        }
      }),
      { numRuns: 300, seed: 7 },
    );
    expect(compiledSets).toBeGreaterThan(250);
  });

  it('adds a rule only where precedence would overrule the first match', () => {
    const compile = (edgeRules: EdgeRuleConfig[]) => {
      const service = meshPlan(edgeNetwork, { edgeRules }).services[0];
      if (service === undefined) throw new Error('no web');
      return compileEdgeRules(service).rules;
    };
    // Precedence agrees with the order: the rules as written.
    expect(
      compile([
        { path: '/premium', class: 'gold' },
        { header: 'x-api-key', value: 'k1', class: 'silver' },
      ]),
    ).toEqual([
      { region: { path: '/premium', headers: [] }, className: 'gold' },
      { region: { path: '/', headers: [{ name: 'x-api-key', value: 'k1' }] }, className: 'silver' },
    ]);
    // It does not: the intersection, with the first rule's class, goes first.
    expect(
      compile([
        { header: 'x-api-key', value: 'k1', class: 'gold' },
        { path: '/premium/', class: 'silver' },
      ]),
    ).toEqual([
      {
        region: { path: '/premium', headers: [{ name: 'x-api-key', value: 'k1' }] },
        className: 'gold',
      },
      { region: { path: '/premium', headers: [] }, className: 'silver' },
      { region: { path: '/', headers: [{ name: 'x-api-key', value: 'k1' }] }, className: 'gold' },
    ]);
    // A rule another one shadows entirely keeps that one's class.
    expect(
      compile([
        { path: '/a', class: 'gold' },
        { path: '/a/b', method: 'GET', class: 'silver' },
      ]),
    ).toEqual([
      { region: { path: '/a', headers: [] }, className: 'gold' },
      { region: { path: '/a/b', method: 'GET', headers: [] }, className: 'gold' },
    ]);
  });

  it('matches a header’s presence with a RegularExpression and says so', () => {
    const plan = meshPlan(edgeNetwork, { edgeRules: [{ header: 'x-partner', class: 'gold' }] });
    const { objects, limits } = gatewayApiManifest(plan);
    const edge = routesOf(objects, { kind: 'Gateway', name: DEFAULT_GATEWAY });
    expect(edge[0]?.spec.rules?.[0]?.matches).toEqual([
      {
        path: { type: 'PathPrefix', value: '/' },
        headers: [{ type: 'RegularExpression', name: 'x-partner', value: '.*' }],
      },
    ]);
    expect(headersAfter(take(edge, request({ 'x-partner': 'any' })), {})['x-priority']).toBe(
      'gold',
    );
    expect(limits.some((l) => l.includes('RegularExpression'))).toBe(true);
  });

  it('attaches the edge routes to an existing Gateway when told, and writes none', () => {
    const plan = meshPlan(edgeNetwork);
    const { objects } = gatewayApiManifest(plan, {
      namespace: 'shop',
      gateway: 'public',
      gatewayNamespace: 'ingress',
    });
    expect(objects.some((o) => o.kind === 'Gateway')).toBe(false);
    for (const object of objects) expect(kubernetesProblems(object)).toEqual([]);
    const [edge] = routesOf(objects, { kind: 'Gateway', name: 'public' });
    expect(edge?.spec.parentRefs).toEqual([
      { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public', namespace: 'ingress' },
    ]);
    expect(edge?.metadata.namespace).toBe('shop');
    const gateway = gatewayApiManifest(plan, { gatewayClassName: 'istio' }).objects[0];
    expect(gateway?.spec).toMatchObject({ gatewayClassName: 'istio' });
  });

  it('gives each of several edge services its own host on the shared Gateway', () => {
    const network = parseNetwork(
      [
        'classes: [{ name: high, retries: 3 }, { name: low, retries: 1 }]',
        'services:',
        '  - { name: web, capacity: 10, queue: 8, arrivals: { high: 1 }, calls: [{ to: db }] }',
        '  - { name: api, capacity: 10, queue: 8, arrivals: { low: 1 }, calls: [{ to: db }] }',
        '  - { name: db, capacity: 10, queue: 4 }',
      ].join('\n'),
      'two-edges.yaml',
    );
    const { objects, limits } = gatewayApiManifest(meshPlan(network));
    const edge = routesOf(objects, { kind: 'Gateway', name: DEFAULT_GATEWAY });
    expect(edge.map((r) => r.spec.hostnames)).toEqual([['web'], ['api']]);
    const selected = selectRule(edge, { ...request({}), host: 'api' });
    expect(selected?.route.metadata.name).toBe('api.edge');
    expect(limits.some((l) => l.includes('hostnames'))).toBe(true);
  });

  it('refuses what an HTTPRoute cannot hold, naming it', () => {
    const withRules = (edgeRules: EdgeRuleConfig[]) =>
      gatewayApiManifest(meshPlan(edgeNetwork, { edgeRules }));
    expect(() => withRules([{ method: 'PROPFIND', class: 'gold' }])).toThrow(
      /web: edge rule 1: method "PROPFIND"/,
    );
    expect(() => withRules([{ path: '/a//b', class: 'gold' }])).toThrow(RangeError);
    expect(() => withRules([{ header: 'x-k', value: 'é', class: 'gold' }])).toThrow(RangeError);
    expect(() => gatewayApiManifest(meshPlan(edgeNetwork), { gateway: 'Bad_Name' })).toThrow(
      /gateway: expected a Kubernetes object name/,
    );
  });

  it('writes GEP-1731’s least backoff: the base, the delay or the mean', () => {
    expect(gatewayBackoffMs({ kind: 'exponential', baseMs: 25, maxMs: 1000 })).toBe(25);
    expect(gatewayBackoffMs({ kind: 'constant', delayMs: 50 })).toBe(50);
    expect(gatewayBackoffMs({ kind: 'random', meanMs: 100 })).toBe(100);
  });
});
