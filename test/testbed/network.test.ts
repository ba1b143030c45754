import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { measureTestbed } from '../../src/testbed/experiment/measureTestbed.js';
import { predictTestbed } from '../../src/testbed/experiment/predictTestbed.js';
import { startTestbed, type Testbed } from '../../src/testbed/network/startTestbed.js';

/** a → b: every request at a calls b once; the classes retry at every hop after ~20 ms. */
function twoServices(b: { capacity: number; queue: number }, gamma: number) {
  return parseNetwork(
    `
name: a-b
classes:
  - { name: high, retries: 3, backoff: { kind: random, meanMs: 20 } }
  - { name: low, retries: 1, backoff: { kind: random, meanMs: 20 } }
services:
  - name: a
    capacity: 500
    queue: 50
    arrivals: { high: ${gamma}, low: ${gamma} }
    calls: [{ to: b }]
  - { name: b, capacity: ${b.capacity}, queue: ${b.queue} }
`,
    'a-b.yaml',
  );
}

const started: Testbed[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((t) => t.close()));
});

describe.each([
  // The load generator runs in its own thread in one case, beside the services in the other.
  { sidecars: true, edgeThread: true, label: 'through sidecars' },
  { sidecars: false, edgeThread: false, label: 'in-process retries' },
])('a two-service network end to end, $label', ({ sidecars, edgeThread }) => {
  it('rejects nothing under light load, with one internal call per request', async () => {
    const m = await measureTestbed(twoServices({ capacity: 500, queue: 20 }, 15), {
      sidecars,
      edgeThread,
      seed: 3,
      warmupS: 0.3,
      durationS: 1.5,
    });
    for (const c of m.classes) {
      expect(c.finished, c.name).toBeGreaterThan(5);
      expect(c.rejection, c.name).toBe(0);
      // Every request sent in the window followed to its end; the old count beside it.
      expect(c.unfinished, c.name).toBe(0);
      expect(c.finished, c.name).toBe(c.sent);
      expect(c.answeredInWindow.rejection, c.name).toBe(0);
    }
    expect(m.unfinished).toBe(0);
    // Every request reaches b exactly once (counted over the window, so edges blur it a bit).
    expect(m.internalPerRequest).toBeGreaterThan(0.8);
    expect(m.internalPerRequest).toBeLessThan(1.2);
    const prediction = predictTestbed(m);
    expect(prediction.calls.load.internalPerRequest).toBeCloseTo(1, 2);
    expect(m.aborted).toBe(false);
  });

  it('rejects when b is overloaded, and the callers’ retries show in the internal calls', async () => {
    const m = await measureTestbed(twoServices({ capacity: 20, queue: 2 }, 30), {
      sidecars,
      edgeThread: false,
      seed: 4,
      warmupS: 0.5,
      durationS: 2,
    });
    const b = m.services.find((s) => s.name === 'b');
    expect(b?.rejected.reduce((x, y) => x + y, 0)).toBeGreaterThan(0);
    for (const c of m.classes) {
      expect(c.failed, c.name).toBeGreaterThan(0);
      // The drain waited for the window's retried requests: none left unfinished.
      expect(c.unfinished, c.name).toBe(0);
      expect(c.finished, c.name).toBe(c.sent);
      expect(c.answeredInWindow.finished, c.name).toBeGreaterThan(0);
    }
    // Without retries there would be at most one call to b per request; a's hop retries b
    // (k = 3 or 1) and the ingress retries a, re-running its call to b (nested retries).
    expect(m.internalPerRequest).toBeGreaterThan(1.3);
    expect(m.attemptsPerRequest).toBeGreaterThan(m.internalPerRequest + 1);
  });
});

describe('startTestbed', () => {
  it('closes every server it started', async () => {
    const testbed = await startTestbed(twoServices({ capacity: 500, queue: 20 }, 10), {
      seed: 1,
    });
    started.push(testbed);
    // services a and b, a's sidecar, the ingress sidecar
    expect(testbed.listeners).toHaveLength(4);
    const response = await request(`${testbed.ingressUrl}/a/`, {
      headers: { 'x-priority': 'high' },
    });
    await response.body.dump();
    expect(response.statusCode).toBe(200);
    await testbed.close();
    for (const url of testbed.listeners) {
      await expect(request(url), url).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    }
  });

  it('refuses a routing network', async () => {
    const routing = parseNetwork(
      `
classes: [{ name: c, retries: 1 }]
services:
  - { name: a, capacity: 10, queue: 5, arrivals: { c: 1 }, routes: [{ to: b, p: 1 }] }
  - { name: b, capacity: 10, queue: 5 }
`,
      'r.yaml',
    );
    await expect(startTestbed(routing)).rejects.toThrow(/call-graph/);
  });
});
