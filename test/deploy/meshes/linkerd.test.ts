import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../../src/config/parseNetwork.js';
import { gatewayDuration } from '../../../src/deploy/durations.js';
import { kubernetesNames } from '../../../src/deploy/kubernetesNames.js';
import { linkerdManifest, linkerdRetryAnnotations } from '../../../src/deploy/linkerd.js';
import { type ClassHop, type MeshPlan, meshPlan } from '../../../src/deploy/meshPlan.js';
import { take } from '../gatewayRule.js';
import { linkerdRetry, retried } from '../linkerdRetry.js';
import {
  type HttpRequest,
  type HttpRouteDoc,
  headersAfter,
  routesOf,
  type Selected,
} from './httpRouteMatch.js';
import { kubernetesProblems } from './kubernetesSchema.js';
import { example, NETWORKS } from './meshNetworks.js';

// The generated Linkerd routes, checked two ways: strictly against the Gateway API CRDs' schemas,
// and by what Linkerd would do with them — the route each request takes under Gateway API
// precedence across the routes of a Service (test/deploy/meshes/httpRouteMatch.ts), and the retry
// policy Linkerd's policy controller reads from that route's annotations
// (test/deploy/linkerdRetry.ts, which the deployment-equivalence test shares).

const request = (headers: Record<string, string>): HttpRequest => ({
  path: '/any/path',
  method: 'GET',
  headers,
});

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
      'db.gold',
      'db.bronze',
      'db.unclassified',
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

  it('gives two classes that share a Kubernetes label, and a class named unclassified, routes of their own', () => {
    const network = parseNetwork(
      [
        'classes: [{ name: a_b, retries: 3 }, { name: a-b, retries: 1 }, { name: unclassified, retries: 0 }]',
        'services:',
        '  - { name: web, capacity: 10, queue: 8, arrivals: { a_b: 1 }, calls: [{ to: db }] }',
        '  - { name: db, capacity: 10, queue: 4 }',
      ].join('\n'),
      'labels.yaml',
    );
    const { objects } = linkerdManifest(meshPlan(network));
    expect(objects.map((o) => o.metadata.name)).toEqual([
      'db.a-b',
      'db.a-b-2',
      'db.unclassified-2',
      'db.unclassified',
    ]);
  });

  it('refuses classes that differ only in case, in the network file: a class header is read in any case', () => {
    expect(() =>
      parseNetwork(
        [
          'classes: [{ name: High, retries: 3 }, { name: high, retries: 1 }]',
          'services:',
          '  - { name: web, capacity: 10, queue: 8, arrivals: { High: 1 } }',
        ].join('\n'),
        'clash.yaml',
      ),
    ).toThrow(/classes\[1\]\.name: duplicate class name "high" \("High" in another case\)/);
  });
});
