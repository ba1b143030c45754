import { describe, expect, it } from 'vitest';
import { generateMuBench, toNetworkModel } from '../../../src/config/index.js';
import type { AnalysisProgress } from '../../../src/model/network/AnalysisProgress.js';
import { sweepsPerReport } from '../../../src/model/network/AnalysisProgress.js';
import { analyzeNetwork } from '../../../src/model/network/analyzeNetwork.js';

/** A µBench-like call graph whose rising load takes a few hundred sweeps (60 services, seed 0). */
const network = toNetworkModel(
  generateMuBench({ services: 60, classes: 2, seed: 0, form: 'calls' }),
);

describe('analyzeNetwork: onProgress', () => {
  it('is told each phase in order, and the sweeps so far every 250 sweeps within a search', () => {
    const seen: AnalysisProgress[] = [];
    const report = analyzeNetwork(network, { onProgress: (p) => seen.push(p) });
    const phases = seen.map((p) => p.phase).filter((p, i, all) => p !== all[i - 1]);
    expect(phases, JSON.stringify(seen)).toEqual(['structure', 'healthy', 'storm', 'report']);
    // The sweeps never go back, and within the healthy search come every 250 sweeps (the most
    // between two reports, for a network this small: 120 cells).
    expect(sweepsPerReport(120)).toBe(250);
    for (let i = 1; i < seen.length; i++)
      expect(seen[i]?.sweeps).toBeGreaterThanOrEqual(seen[i - 1]?.sweeps as number);
    const healthy = seen.filter((p) => p.phase === 'healthy').map((p) => p.sweeps);
    expect(healthy[0]).toBe(0);
    expect(healthy.length, JSON.stringify(seen)).toBeGreaterThan(1);
    expect(healthy.slice(1).every((sweeps, k) => sweeps === 250 * (k + 1))).toBe(true);
    // The storm's sweeps count on from the healthy search's; the report phase gives the last.
    const storm = seen.find((p) => p.phase === 'storm');
    expect(storm?.sweeps).toBeGreaterThanOrEqual(healthy.at(-1) as number);
    expect(seen.at(-1)?.sweeps).toBe(Math.max(...seen.map((p) => p.sweeps)));
    // Listening changes nothing in the report.
    expect(analyzeNetwork(network)).toEqual(report);
  });

  it('reports about every 500,000 cell updates on a large network, at most 250 sweeps apart', () => {
    expect(sweepsPerReport(2000)).toBe(250);
    expect(sweepsPerReport(20_000)).toBe(25);
    expect(sweepsPerReport(10_000_000)).toBe(1);
    expect(sweepsPerReport(0)).toBe(250);
  });

  it('a network without calls hears the structure and report phases only', () => {
    const seen: string[] = [];
    analyzeNetwork(
      {
        classes: [{ name: 'only', retryLimit: 2 }],
        services: [
          {
            name: 'api',
            capacity: 100,
            queue: 20,
            model: 'mm1m',
            arrivals: [50],
            retryLimits: [2],
            routes: [],
          },
        ],
      },
      { onProgress: (p) => seen.push(p.phase) },
    );
    expect(seen).toEqual(['structure', 'report']);
  });
});
