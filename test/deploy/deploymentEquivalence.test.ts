import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { deploy } from './deployment.js';
import { cutShort } from './envoyDeadlines.js';
import { envoyHop, firstMatch, outboundHost } from './envoyRoutes.js';
import { mismatches } from './equivalence.js';
import {
  fractionalMs,
  type NetworkDraw,
  networkDraws,
  networkOf,
  wholeMs,
} from './randomNetwork.js';

// Deployment equivalence: for random network files, every hop (every caller → each service it
// routes or calls to, and the calls into every service) and every class, the analysis
// (resolveHops, the model), the sidecar configs, the mesh plan and every generated mesh (Envoy,
// Istio, Linkerd, Gateway API, and the xDS a gRPC client gets) agree on the retry limit k and the
// per-try timeout — or the output names the limit of the platform that prevents it. Each mesh's
// output is read back the way the platform reads it (test/deploy/*): the route a request with the
// class header takes, and the retries and timeouts on that route. See equivalence.ts.

/** Random networks per property: each is deployed to every mesh and read back at every hop. */
const NUM_RUNS = 120;
/** Fewer for the properties that check one aspect more (sub-ms timeouts, Envoy's deadlines). */
const NUM_RUNS_ASPECT = 40;
const SEED = 20_240_611;

/** Fails with the network's YAML and the first of `found`, when there is any. */
function expectNone(found: readonly string[], yaml: string, what: string): void {
  if (found.length === 0) return;
  throw new Error(
    `${found.length} ${what}, first:\n  ${found.slice(0, 12).join('\n  ')}\nin\n${yaml}`,
  );
}

function expectEquivalent(draw: NetworkDraw): void {
  const { yaml, network } = networkOf(draw);
  expectNone(mismatches(deploy(network)), yaml, 'mismatches');
}

describe('deployment equivalence: every consumer of a network file agrees on every hop', () => {
  it('frontend → cart: gold gets cart’s 80 ms per-try timeout and 3 retries, bronze no retry', () => {
    const network = parseNetwork(
      [
        'classes:',
        '  - { name: gold, retries: 3, timeoutMs: 300 }',
        '  - { name: bronze, retries: 1 }',
        'services:',
        '  - { name: frontend, capacity: 100, queue: 10, arrivals: { gold: 1, bronze: 5 }, calls: [{ to: cart }] }',
        '  - { name: cart, capacity: 100, queue: 10, timeouts: { gold: 80 }, retries: { bronze: 0 } }',
      ].join('\n'),
      'cart.yaml',
    );
    const d = deploy(network);
    const host = outboundHost(d.envoy.get('frontend')?.bootstrap ?? {}, 'cart');
    const gold = firstMatch(host, '/cart', { 'x-priority': 'gold' });
    // It used to be 0.3s: gold's own timeout, not cart's.
    expect(gold.route.retry_policy?.per_try_timeout).toBe('0.08s');
    expect(gold.route.retry_policy?.num_retries).toBe(3);
    const bronze = firstMatch(host, '/cart', { 'x-priority': 'bronze' });
    expect(bronze.route.retry_policy).toBeUndefined();
    expect(envoyHop(bronze)).toMatchObject({ retries: 0, timeoutMs: undefined });
    // No class header: bronze, the default class.
    expect(firstMatch(host, '/cart', {}).route.retry_policy).toBeUndefined();
    expect(mismatches(d)).toEqual([]);
  });

  it(`agrees for ${NUM_RUNS} random networks with per-try timeouts in whole ms`, () => {
    fc.assert(fc.property(networkDraws(wholeMs), expectEquivalent), {
      numRuns: NUM_RUNS,
      seed: SEED,
    });
  });

  // A network file takes any positive ms; Gateway API and Linkerd durations (GEP-2257) hold whole
  // ms (the generators round up) and Istio's validation refuses a fraction of one.
  it('agrees with per-try timeouts in fractions of a ms, or the output names the rounding', () => {
    fc.assert(fc.property(networkDraws(fractionalMs), expectEquivalent), {
      numRuns: NUM_RUNS_ASPECT,
      seed: SEED,
    });
  });

  // Envoy ends a request at the route's `timeout`, 15 s when a route sets none.
  it('gives no Envoy route a deadline that cuts a hop’s attempts short, or names it', () => {
    fc.assert(
      fc.property(networkDraws(wholeMs), (draw) => {
        const { yaml, network } = networkOf(draw);
        expectNone(cutShort(deploy(network)), yaml, 'hops cut short');
      }),
      { numRuns: NUM_RUNS_ASPECT, seed: SEED },
    );
  });
});
