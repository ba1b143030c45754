import { afterEach, describe, expect, it, vi } from 'vitest';
import { solveService } from '../../src/model/service.js';
import { runCli } from './runCli.js';

const run = runCli;

afterEach(() => vi.restoreAllMocks());

const SINGLE = ['tune', '--example', 'single', '--weights', 'high=10,low=1'];

describe('difftry tune', () => {
  it('prints the chosen limits beside the file’s, and the frontier', async () => {
    const { code, stdout, stderr } = await run(...SINGLE, '--constraint', 'high.rejection<=0.05');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toContain('constraints  high.rejection<=0.05');
    expect(stdout).toContain('81 points');
    expect(stdout).toContain('Chosen: high 8, low 0 (the file has high 5, low 1)');
    expect(stdout).toMatch(/^current +5 +1 /m);
    expect(stdout).toMatch(/^chosen +8 +0 /m);
    expect(stdout).toContain('Frontier:');
    // The chosen point leads the frontier, marked with *.
    expect(stdout).toMatch(/^\* +8 +0 /m);
  });

  it('prints one JSON document with chosen, current, frontier, evaluated and feasible', async () => {
    const { code, stdout } = await run(...SINGLE, '--constraint', 'high.rejection<=0.05', '--json');
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.evaluated).toBe(81);
    expect(doc.feasible).toBe(true);
    expect(doc.objective).toBe('weighted-goodput');
    expect(doc.constraints).toEqual(['high.rejection<=0.05']);
    expect(doc.classes).toEqual([
      { name: 'high', weight: 10, external: 50 },
      { name: 'low', weight: 1, external: 250 },
    ]);
    expect(doc.chosen.limits).toEqual({ high: 8, low: 0 });
    expect(doc.chosen.rejection.high).toBeLessThanOrEqual(0.05);
    expect(doc.chosen.violations).toEqual([]);
    expect(doc.current.limits).toEqual({ high: 5, low: 1 });
    expect(doc.current.feasible).toBe(false);
    expect(doc.current.violations[0].constraint).toBe('high.rejection<=0.05');
    expect(doc.leastViolating).toBeNull();
    expect(doc.frontier[0]).toEqual(doc.chosen);
    // The chosen figures are the single-service model's.
    const reference = solveService({
      capacity: 143,
      queue: 50,
      model: 'mixed',
      classes: [
        { arrivalRate: 50, retryLimit: 8 },
        { arrivalRate: 250, retryLimit: 0 },
      ],
    });
    expect(doc.chosen.rejection.high).toBeCloseTo(reference.classes[0]?.rejection ?? 0, 10);
    expect(doc.chosen.goodput.low).toBeCloseTo(reference.classes[1]?.goodput ?? 0, 8);
    expect(doc.chosen.maxRho).toBeCloseTo(reference.rho, 10);
    for (const point of doc.frontier) {
      for (const key of ['objective', 'attemptsPerRequest', 'internalPerRequest', 'maxRho']) {
        expect(typeof point[key]).toBe('number');
      }
    }
  });

  it('searches the --grid given, with several constraints', async () => {
    const { code, stdout } = await run(
      ...SINGLE,
      '--grid',
      'high=2:6,low=1',
      '--constraint',
      'high.rejection<=0.3',
      '--constraint',
      'attemptsPerRequest<=4',
      '--json',
    );
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.evaluated).toBe(5);
    expect(doc.grid).toEqual({ high: { min: 2, max: 6 }, low: { min: 1, max: 1 } });
    expect(doc.chosen.limits.low).toBe(1);
    expect(doc.chosen.attemptsPerRequest).toBeLessThanOrEqual(4);
  });

  it('exits 1 with the least-violating point and what blocks when nothing is feasible', async () => {
    const human = await run(...SINGLE, '--constraint', 'high.rejection<=0.0001');
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('No retry limits in the grid meet every constraint');
    expect(human.stdout).toContain('Blocked by: high.rejection<=0.0001 (by ');
    expect(human.stderr).toMatch(/^difftry: tune: no retry limits .*high\.rejection<=0\.0001/);
    const json = await run(...SINGLE, '--constraint', 'high.rejection<=0.0001', '--json');
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout);
    expect(doc.feasible).toBe(false);
    expect(doc.chosen).toBeNull();
    expect(doc.frontier).toEqual([]);
    expect(doc.leastViolating.limits).toEqual({ high: 8, low: 0 });
    expect(doc.leastViolating.violations[0].excess).toBeGreaterThan(0);
  });

  it('maximises plain goodput with --objective goodput', async () => {
    const { code, stdout } = await run(
      'tune',
      '--example',
      'two-tier',
      '--objective',
      'goodput',
      '--json',
    );
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.objective).toBe('goodput');
    expect(doc.chosen.objective).toBeCloseTo(doc.chosen.totalGoodput, 12);
    expect(doc.current.perServiceOverrides).toBe(true);
  });
});

describe('tune: bad input exits 2 with one line and writes nothing on stdout', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'bad constraint syntax',
      ['--constraint', 'high.rejection<0.05'],
      /--constraint: expected \[CLASS\.\]METRIC<=NUMBER.*got "high\.rejection<0\.05"/,
    ],
    [
      'unknown class in a constraint',
      ['--constraint', 'gold.rejection<=0.05'],
      /"gold\.rejection<=0\.05": expected a class of the network \(high, low\), got "gold"/,
    ],
    [
      'unknown metric',
      ['--constraint', 'high.latency<=1'],
      /expected a metric \(rejection, .*\), got "latency"/,
    ],
    ['class metric without a class', ['--constraint', 'rejection<=0.1'], /belongs to one class/],
    ['network metric with a class', ['--constraint', 'high.maxRho<=1'], /whole network/],
    ['bound not a number', ['--constraint', 'high.rejection<=lots'], /expected a number/],
    ['bad --grid', ['--grid', 'high=3:1'], /--grid: expected 0 ≤ MIN ≤ MAX/],
    ['unknown class in --grid', ['--grid', 'gold=0:3'], /--grid: .*"gold"/],
    ['bad --weights', ['--weights', 'high=-1'], /--weights/],
    ['bad --objective', ['--objective', 'latency'], /--objective: .*"latency"/],
    ['bad --frontier', ['--frontier', 'x'], /--frontier/],
  ];
  it.each(cases)('%s', async (_name, extra, pattern) => {
    const { code, stdout, stderr } = await run('tune', '--example', 'single', ...extra);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^difftry: /);
    expect(stderr).toMatch(pattern);
  });

  it('refuses --weights with --objective goodput', async () => {
    const { code, stderr } = await run(
      'tune',
      '--example',
      'single',
      '--objective',
      'goodput',
      '--weights',
      'high=2',
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/--weights: only used with --objective weighted-goodput/);
  });
});
