// The soak's verdict and report (src/experiments/soak/soakSummary.ts): which checks decide PASS
// or FAIL, and what the markdown summary and the progress line say.
import { describe, expect, it } from 'vitest';
import type { ProcessVerdict, SoakCeilings } from '../../src/experiments/soak/soakCeilings.js';
import { SoakLedger } from '../../src/experiments/soak/soakOutcomes.js';
import {
  formatProgress,
  formatSoakSummary,
  type SoakReport,
  soakChecks,
  soakPassed,
} from '../../src/experiments/soak/soakSummary.js';

const MIB = 1024 * 1024;
const ceilings: SoakCeilings = {
  rssBytes: 256 * MIB,
  fds: 400,
  settleRssBytes: 48 * MIB,
  settleFds: 8,
};
const verdict = (violations: string[] = []): ProcessVerdict => ({
  baseline: { rssBytes: 130 * MIB, fds: 27 },
  peak: { rssBytes: 160 * MIB, fds: 231, rssAtMs: 40_000, fdsAtMs: 50_000 },
  final: { rssBytes: 140 * MIB, fds: 27 },
  samples: 660,
  violations,
});

function ledger(settleAll: boolean): SoakLedger {
  const book = new SoakLedger({ 'edge low': ['200', '503'], 'edge hang': ['504', '503'] });
  for (let i = 0; i < 10; i++) {
    const ticket = book.send('edge low');
    if (settleAll || i > 0) book.settle(ticket, { type: 'status', status: i < 3 ? 200 : 503 });
  }
  book.settle(book.send('edge hang'), { type: 'status', status: 504 });
  return book;
}

function report(overrides: Partial<SoakReport> = {}): SoakReport {
  return {
    startedAt: '2026-12-01T19:00:00.000Z',
    revision: 'abc1234',
    nodeVersion: 'v20.20.2',
    loadMs: 600_000,
    settleMs: 15_000,
    load: {
      concurrency: 4,
      systemCapacity: 16,
      serviceMs: 100,
      capacityPerSecond: 40,
      offeredPerSecond: { edge: 394, mesh: 404 },
      slowClients: { edge: 10, mesh: 4 },
    },
    kinds: [
      { name: 'edge low', description: 'client, default class', normal: true },
      { name: 'edge hang', description: 'app never answers', normal: false },
    ],
    ledger: ledger(true).tally(),
    warmUp: { sent: 190, settled: 190, pending: 0, duplicates: 0 },
    skipped: 0,
    goodputPerSecond: { edge: 39.5, mesh: 39 },
    minGoodputFraction: 0.5,
    ceilings: { edge: ceilings, mesh: ceilings },
    processes: [
      { name: 'edge', pid: 101, verdict: verdict(), healthy: true },
      { name: 'mesh', pid: 102, verdict: verdict(), healthy: true },
    ],
    ceilingNote: 'Why these ceilings.',
    ...overrides,
  };
}

const failing = (r: SoakReport) =>
  soakChecks(r)
    .filter((check) => !check.pass)
    .map((check) => check.name);

describe('soakChecks', () => {
  it('passes a run where everything held', () => {
    const checks = soakChecks(report());
    expect(soakPassed(checks)).toBe(true);
    expect(checks.find((c) => c.name.startsWith('requests lost'))?.detail).toBe('11 − 11 = 0');
  });

  it('fails a lost request, a warm-up loss, a double count, an unexpected outcome, a skip', () => {
    expect(failing(report({ ledger: ledger(false).tally() }))).toEqual([
      'requests lost (sent − accounted for)',
    ]);
    expect(failing(report({ warmUp: { sent: 2, settled: 1, pending: 1, duplicates: 0 } }))).toEqual(
      ['warm-up requests lost'],
    );
    expect(failing(report({ warmUp: { sent: 2, settled: 2, pending: 0, duplicates: 1 } }))).toEqual(
      ['outcomes counted twice'],
    );
    const odd = new SoakLedger({ 'edge low': ['200'] });
    odd.settle(odd.send('edge low'), { type: 'reset' });
    expect(failing(report({ ledger: odd.tally() }))).toEqual(['unexpected outcomes']);
    expect(failing(report({ skipped: 3 }))).toEqual(['arrivals skipped at the in-flight bound']);
  });

  it('fails a starved gate, a ceiling crossed, a sidecar unhealthy', () => {
    expect(failing(report({ goodputPerSecond: { edge: 19.9, mesh: 39 } }))).toEqual([
      'edge: goodput ≥ 50 % of capacity',
    ]);
    const processes = report().processes;
    expect(
      failing(
        report({
          processes: [
            { ...(processes[0] as SoakReport['processes'][number]), healthy: false },
            {
              ...(processes[1] as SoakReport['processes'][number]),
              verdict: verdict(['the process exited at 40 s']),
            },
          ],
        }),
      ),
    ).toEqual(['edge: /healthz after settling', 'mesh: ceilings, return to baseline, alive']);
  });
});

describe('formatSoakSummary', () => {
  it('states the result, the load, every kind’s outcomes, lost = 0 and the resources', () => {
    const text = formatSoakSummary(report());
    expect(text).toContain('- **Result: PASS**');
    expect(text).toContain('Load 10.00 min from 2026-12-01T19:00:00.000Z, then 15 s settling');
    expect(text).toContain('capacity c / S = 40 req/s');
    expect(text).toContain('edge 394.0 req/s (9.8×), mesh 404.0 req/s (10.1×)');
    expect(text).toContain('| edge low | client, default class | 10 | 503: 7, 200: 3 | 0 |');
    expect(text).toContain('| edge hang | app never answers | 1 | 504: 1 | 0 |');
    expect(text).toContain('sent 11 − accounted for 11 = **0**');
    expect(text).toContain(
      '| edge | 101 | 660 | 130.0 MiB | 160.0 MiB | 140.0 MiB | 27 | 231 | 27 |',
    );
    expect(text).toContain('| mesh | 256.0 MiB | 400 | ≤ baseline + 48.0 MiB | ≤ baseline + 8 |');
    expect(text).toContain('Why these ceilings.');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('says FAIL, shows the lost requests of their kind and the violation', () => {
    const processes = report().processes;
    const text = formatSoakSummary(
      report({
        ledger: ledger(false).tally(),
        processes: [
          processes[0] as SoakReport['processes'][number],
          {
            ...(processes[1] as SoakReport['processes'][number]),
            verdict: verdict([
              'RSS 300.0 MiB at 40 s over the ceiling 256.0 MiB (1 of 660 samples)',
            ]),
          },
        ],
      }),
    );
    expect(text).toContain('- **Result: FAIL**');
    expect(text).toContain(
      '| edge low | client, default class | 10 | 503: 7, 200: 2, **lost: 1** | 0 |',
    );
    expect(text).toContain('| requests lost (sent − accounted for) | 11 − 10 = 1 | FAIL |');
    expect(text).toContain('over the ceiling 256.0 MiB (1 of 660 samples) | FAIL |');
  });
});

describe('formatProgress', () => {
  const tally = { sent: 47_210, pending: 38, unexpected: 0 };

  it('shows time, counts and each process', () => {
    expect(
      formatProgress(120_000, 600_000, tally, [
        { name: 'edge', rssBytes: 160.2 * MIB, fds: 61 },
        { name: 'mesh' },
      ]),
    ).toBe(
      'soak 120/600 s  sent 47,210  in flight 38  unexpected 0  edge 160.2 MiB 61 fds  mesh gone',
    );
  });

  it('counts the drain past the load apart', () => {
    expect(formatProgress(615_000, 600_000, tally, [])).toBe(
      'soak 600/600 s, draining +15 s  sent 47,210  in flight 38  unexpected 0',
    );
  });
});
