import { createServer, type Server } from 'node:http';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/model/random.js';
import { runEdge } from '../../src/testbed/edge/runEdge.js';
import { openLoopPoisson } from '../../src/testbed/load/openLoopPoisson.js';
import { poissonSendTimes } from '../../src/testbed/load/poissonSendTimes.js';
import { listenOnLoopback } from '../../src/testbed/network/listenOnLoopback.js';

// Real loopback servers on port 0 that decide which requests are slow and fail late, so the
// exact rejection of the requests sent in a window is known in advance.

const servers: Server[] = [];
const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.destroy()));
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
});

/** A server answering `GET /i`: 503 after `slowMs` when `fails(i)`, else 200 at once. */
async function lateFailures(fails: (i: number) => boolean, slowMs: number): Promise<string> {
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    req.resume();
    const i = Number((req.url ?? '/').slice(1));
    if (!fails(i)) {
      res.writeHead(200).end('ok');
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      res.writeHead(503).end('late failure');
    }, slowMs);
    timers.add(timer);
  });
  server.on('close', () => {
    for (const t of timers) clearTimeout(t);
  });
  servers.push(server);
  return listenOnLoopback(server);
}

describe('counting by send time, on loopback', () => {
  it('counts the window’s late failures exactly, where the answered-in-window count misses them', async () => {
    const fails = (i: number) => i % 3 === 0;
    const slowMs = 400;
    const url = await lateFailures(fails, slowMs);
    const agent = new Agent({ connections: null });
    agents.push(agent);
    const rate = 80;
    const seed = 11;
    const durationS = 1.5;
    const graceS = 3;
    const report = await openLoopPoisson({
      rate,
      durationS,
      seed,
      graceS,
      send: async (i) => {
        const response = await request(`${url}/${i}`, { dispatcher: agent });
        await response.body.dump();
        return response.statusCode === 200;
      },
    });
    // The population, from the seed alone: the requests meant for [0, 1.5 s).
    const intended = [
      ...poissonSendTimes(rate, 1000 * (durationS + graceS), seededRandom(seed, 0)),
    ].filter((t) => t < 1000 * durationS);
    const failing = intended.map((_, i) => i).filter(fails);
    const { window } = report;
    expect(window.intended).toBe(intended.length);
    expect(window.unfinished).toBe(0);
    expect(window.errors).toBe(0);
    expect(window.failed).toBe(failing.length);
    expect(window.succeeded).toBe(intended.length - failing.length);
    expect(window.failed / window.finished).toBeCloseTo(failing.length / intended.length, 12);
    // A late failure answers at least 400 ms after its intended time (a little less allowed
    // for timer rounding), so the old count can only hold those meant before 1.5 s − 0.4 s.
    const answerable = failing.filter((i) => (intended[i] as number) < 1000 * durationS - 390);
    const old = window.answeredInWindow;
    expect(old.failed).toBeLessThanOrEqual(answerable.length);
    expect(answerable.length).toBeLessThan(failing.length);
    expect(old.failed / old.finished).toBeLessThan(window.failed / window.finished);
  });

  it('keeps every stream of the edge loading until the slowest class’s window has ended', async () => {
    // The entry: the high class fails after 300 ms, the low class succeeds at once.
    const timers = new Set<NodeJS.Timeout>();
    const server = createServer((req, res) => {
      req.resume();
      if (req.headers['x-priority'] !== 'high') {
        res.writeHead(200).end('ok');
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.writeHead(503).end('late failure');
      }, 300);
      timers.add(timer);
    });
    server.on('close', () => {
      for (const t of timers) clearTimeout(t);
    });
    servers.push(server);
    const url = await listenOnLoopback(server);
    const backoff = { kind: 'random', meanMs: 10 } as const;
    const [high, low] = await runEdge({
      client: {
        targets: { entry: { url, retryLimits: { high: 0, low: 0 } } },
        classes: [
          { name: 'high', backoff },
          { name: 'low', backoff },
        ],
        header: 'x-priority',
        seed: 1,
        stream: 0,
      },
      streams: [
        { entry: 'entry', className: 'high', rate: 40, seed: 3, stream: 1, endpointStream: 2 },
        { entry: 'entry', className: 'low', rate: 60, seed: 3, stream: 3, endpointStream: 4 },
      ],
      warmupS: 0,
      durationS: 1,
      graceS: 3,
      batches: 1,
    });
    // Every high request sent in the window failed, and every one was counted.
    expect(high?.window.unfinished).toBe(0);
    expect(high?.window.failed).toBe(high?.window.intended);
    expect(high?.window.finished).toBe(high?.window.intended);
    // The old count lost those sent in the window's last 300 ms.
    const highTimes = [...poissonSendTimes(40, 4_000, seededRandom(3, 1))];
    const lastStretch = highTimes.filter((t) => t >= 700 && t < 1_000).length;
    expect(lastStretch).toBeGreaterThan(0);
    expect(high?.window.answeredInWindow.failed).toBeLessThanOrEqual(
      (high?.window.intended ?? 0) - lastStretch,
    );
    // The low class's own window ended at once, but its load went on through the high class's
    // drain: it sent past its window, on its schedule.
    expect(low?.window.unfinished).toBe(0);
    expect(low?.window.failed).toBe(0);
    expect(low?.sent).toBeGreaterThan(low?.window.intended ?? Number.POSITIVE_INFINITY);
  });
});
