import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, propagation } from '@opentelemetry/api';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { externalClientDownstream } from '../../src/testbed/network/startIngress.js';
import { startTestbed, TESTBED_TRACE_FILES } from '../../src/testbed/network/startTestbed.js';
import { inferNetwork } from '../../src/traces/infer/inferNetwork.js';
import { readTraceFileSpans } from '../../src/traces/readTraceFile.js';
import { storeTraceFiles } from '../../src/traces/storeTraceFiles.js';

/** a calls b on every request; b is small, so some calls are refused and retried. */
const network = parseNetwork(
  `
name: a-b
classes:
  - { name: high, retries: 3, backoff: { kind: random, meanMs: 5 } }
  - { name: low, retries: 1, backoff: { kind: random, meanMs: 5 } }
services:
  - { name: a, capacity: 2000, queue: 50, arrivals: { high: 10, low: 10 }, calls: [{ to: b }] }
  - { name: b, capacity: 400, queue: 2 }
`,
  'a-b.yaml',
);

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
afterEach(() => {
  context.disable();
  propagation.disable();
});

describe.each([
  { deployment: 'in-process retries', sidecars: false },
  { deployment: 'sidecars', sidecars: true },
])('a traced testbed ($deployment)', ({ sidecars }) => {
  it('writes OTLP/JSON lines from which the network comes back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'difftry-testbed-traces-'));
    dirs.push(dir);
    const testbed = await startTestbed(network, { seed: 3, sidecars, ingress: false, traces: dir });
    const client = await externalClientDownstream(testbed.externalClient);
    try {
      // Bursts of 40 concurrent requests, so that b (m = 2) refuses some and they are retried.
      for (let burst = 0; burst < 5; burst++) {
        await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            client.call('a', i % 2 === 0 ? 'high' : 'low', { external: true }),
          ),
        );
      }
    } finally {
      await client.close();
      await testbed.close();
    }
    const services = await readTraceFileSpans(join(dir, TESTBED_TRACE_FILES.services));
    const load = await readTraceFileSpans(join(dir, TESTBED_TRACE_FILES.load));
    expect(new Set(services.map((s) => s.service))).toEqual(new Set(['a', 'b']));
    expect(new Set(load.map((s) => s.service))).toEqual(new Set(['load']));
    // Every request at a and b is a server span; every server span at b hangs below an attempt
    // span of a's (a client span), and every one at a below one of the load's.
    const byId = new Map([...services, ...load].map((s) => [`${s.traceId}/${s.spanId}`, s]));
    const parentOf = (s: (typeof services)[number]) =>
      byId.get(`${s.traceId}/${s.parentSpanId ?? ''}`);
    const bServers = services.filter((s) => s.service === 'b' && s.kind === 'server');
    const aServers = services.filter((s) => s.service === 'a' && s.kind === 'server');
    // The load retries a request whose call to b failed: a sees each of its attempts.
    const loadAttempts = load.filter((s) => s.kind === 'client');
    expect(aServers).toHaveLength(loadAttempts.length);
    expect(aServers.length).toBeGreaterThanOrEqual(200);
    expect(bServers.length).toBeGreaterThan(aServers.length);
    for (const span of bServers) {
      expect(parentOf(span)).toMatchObject({ service: 'a', kind: 'client' });
    }
    for (const span of aServers) {
      expect(parentOf(span)).toMatchObject({ service: 'load', kind: 'client' });
    }
    const store = await storeTraceFiles(
      Object.values(TESTBED_TRACE_FILES).map((file) => join(dir, file)),
    );
    const { network: inferred, evidence } = inferNetwork(store, { classes: ['high', 'low'] });
    expect(inferred.services.map((s) => s.name)).toEqual(['a', 'b']);
    expect(inferred.services[0]?.calls).toEqual([{ to: 'b' }]);
    const refused = bServers.filter((s) => s.attributes['http.response.status_code'] === 503);
    expect(refused.length).toBeGreaterThan(0);
    const intoB = evidence.hops.filter((h) => h.callee === 'b');
    // Each of a's requests called b once; the 200 external requests are told from their retries.
    expect(evidence.entryRequests).toBe(200);
    expect(intoB.reduce((n, h) => n + h.calls, 0)).toBe(aServers.length);
    expect(intoB.reduce((n, h) => n + h.attempts, 0)).toBe(bServers.length);
    for (const hop of intoB) {
      expect(hop.maxRetries).toBeLessThanOrEqual(hop.className === 'high' ? 3 : 1);
    }
  }, 30_000);
});
