import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startService, type TestbedService } from '../../src/testbed/network/startService.js';

const running: TestbedService[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

describe('a testbed service', () => {
  it('rejects beyond m at once with 503, before any work is done', async () => {
    // u = 0.5 every draw: each unit of work takes ln 2 / μ = 6.9 s at μ = 0.1/s, far longer
    // than the test; so whatever answers during the test was answered by admission.
    const service = await startService({
      name: 'slow',
      capacity: 0.1,
      queue: 3,
      classes: ['high', 'low'],
      program: { steps: [], branches: [] },
      random: () => 0.5,
    });
    running.push(service);
    const controller = new AbortController();
    const answered: { status: number; reason: unknown }[] = [];
    const attempts = Array.from({ length: 8 }, (_, i) =>
      request(`${service.url}/`, {
        headers: { 'x-priority': i % 2 === 0 ? 'high' : 'low' },
        signal: controller.signal,
      }).then(
        async (r) => {
          await r.body.dump();
          answered.push({ status: r.statusCode, reason: r.headers['x-testbed-reason'] });
        },
        () => {}, // aborted at the end of the test
      ),
    );
    // Five of the eight find m = 3 present (1 working, 2 waiting) and are answered now.
    for (let i = 0; i < 200 && answered.length < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, 50)); // nothing else answers
    expect(answered).toHaveLength(5);
    for (const a of answered) {
      expect(a.status).toBe(503);
      expect(a.reason).toBe('admission');
    }
    expect(service.inSystem()).toBe(3);
    const stats = service.stats();
    expect(stats.rejected.reduce((x, y) => x + y, 0)).toBe(5);
    expect(stats.arrivals.reduce((x, y) => x + y, 0)).toBe(8);
    expect(stats.jobs).toBe(0);
    controller.abort();
    await Promise.all(attempts);
  });

  it('answers 200 after its work when it calls nothing, and counts its classes', async () => {
    const service = await startService({
      name: 'fast',
      capacity: 1000,
      queue: 10,
      classes: ['high', 'low'],
      program: { steps: [], branches: [] },
      random: () => 0.5,
    });
    running.push(service);
    const statuses = await Promise.all(
      ['high', 'low', 'unknown'].map(async (priority) => {
        const r = await request(`${service.url}/`, { headers: { 'x-priority': priority } });
        await r.body.dump();
        return r.statusCode;
      }),
    );
    expect(statuses).toEqual([200, 200, 200]);
    const stats = service.stats();
    // An unknown class is the lowest one's.
    expect(stats.succeeded).toEqual([1, 2]);
    expect(stats.jobs).toBe(3);
    expect(stats.busyMs).toBeGreaterThan(0);
  });
});
