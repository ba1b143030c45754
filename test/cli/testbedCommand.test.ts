import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CommandOutput } from '../../src/cli/CommandOutput.js';
import { EXIT_INTERRUPTED } from '../../src/cli/exitCodes.js';
import { registerTestbedCommands } from '../../src/cli/testbedCommand.js';
import { testbedRunCommand } from '../../src/cli/testbedRunCommand.js';
import { builtinExample, parseNetwork } from '../../src/config/index.js';
import { runFig5 } from '../../src/experiments/figure5/testbedFigure5.js';
import {
  fig5Csv,
  fig5Markdown,
  fig5Svg,
} from '../../src/experiments/figure5/testbedFigure5Report.js';
import { fig5Rows, fig5Summary } from '../../src/experiments/figure5/testbedFigure5Summary.js';

const load = (name: string) => {
  const { fileName, text } = builtinExample(name);
  return parseNetwork(text, fileName);
};

describe('difftry testbed run', () => {
  it('prints measured beside both predictions as one JSON document', async () => {
    const outputs: CommandOutput[] = [];
    const program = new Command('difftry').exitOverride();
    registerTestbedCommands(program, (output) => outputs.push(output));
    await program.parseAsync(
      ['testbed', 'run', '--json', '--scale', '0.1', '--warmup', '0.2', '--duration', '1'],
      { from: 'user' },
    );
    expect(outputs).toHaveLength(1);
    const document = JSON.parse(outputs[0]?.stdout ?? '');
    expect(document.measured.classes.map((c: { name: string }) => c.name)).toEqual(['high', 'low']);
    expect(document.predicted.calls.mode).toBe('calls');
    expect(document.predicted.routing.mode).toBe('routing');
    expect(Object.keys(document.predicted.capacities)).toContain('frontend');
    // Counted by send time, with the old answered-in-window count beside it.
    for (const c of document.measured.classes) {
      expect(c.finished + c.unfinished, c.name).toBe(c.sent);
      expect(c.answeredInWindow.finished, c.name).toBeGreaterThanOrEqual(0);
    }
    expect(document.setup.graceS).toBe(20);
    expect(outputs[0]?.exitCode ?? 0).toBe(0);
  });

  it('stops everything and exits 130 when interrupted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const output = await testbedRunCommand(
      { scale: 0.1, warmup: 1, duration: 60 },
      controller.signal,
    );
    expect(output.exitCode).toBe(EXIT_INTERRUPTED);
    expect(output.stderr).toMatch(/interrupted/);
  });
});

describe('the Figure 5 sweep', () => {
  it('runs its points and reports them as CSV, SVG and Markdown', async () => {
    const result = await runFig5({
      network: load('hotel-calls'),
      routing: load('hotel'),
      gammaLows: [50],
      scale: 0.1,
      warmupS: 0.2,
      durationS: 1,
      seed: 2,
      edgeThread: false,
    });
    expect(result.aborted).toBe(false);
    expect(result.points.map((p) => p.limit.key)).toEqual(['5/1', '5/5']);
    const rows = fig5Rows(result);
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      // γ = (50, 50) × 0.1 against a frontend μ of 14.3: ρ ≈ 0.7, next to no rejection.
      expect(row.predictedCalls).toBeLessThan(0.01);
      expect(Number.isFinite(row.predictedRouting)).toBe(true);
    }
    const summary = fig5Summary(result);
    expect(summary.capacities.map((c) => c.name)).toContain('frontend');
    const csv = fig5Csv(result).trim().split('\n');
    expect(csv).toHaveLength(5);
    expect(csv[0]).toMatch(/^gammaHigh,gammaLow,k,className,/);
    expect(csv[0]).toMatch(/,sent,finished,unfinished,measuredAnswered,answered,drainS,/);
    for (const row of rows) expect(row.finished + row.unfinished).toBe(row.sent);
    expect(fig5Svg(result)).toMatch(/^<svg[\s\S]*<\/svg>\n$/);
    const md = fig5Markdown(result, { csv: 'f.csv', svg: 'f.svg', command: 'x' });
    expect(md).toMatch(/## Every point/);
    expect(md).toMatch(/\| measured \| answered \|/);
  });

  it('writes its files where --out says', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'difftry-fig5-'));
    try {
      const outputs: CommandOutput[] = [];
      const program = new Command('difftry').exitOverride();
      registerTestbedCommands(program, (output) => outputs.push(output));
      // --quick with the windows cut down, so the test stays short.
      await program.parseAsync(
        [
          'testbed',
          'fig5',
          '--quick',
          '--scale',
          '0.05',
          '--warmup',
          '0',
          '--duration',
          '0.3',
          '--backoff-base-ms',
          '25',
          '--out',
          dir,
        ],
        { from: 'user' },
      );
      expect(outputs[0]?.stderr).toMatch(/wrote/);
      const csv = await readFile(join(dir, 'testbed-fig5.csv'), 'utf8');
      expect(csv.trim().split('\n')).toHaveLength(1 + 3 * 2 * 2);
      const md = await readFile(join(dir, 'testbed-fig5.md'), 'utf8');
      expect(md).toMatch(/testbed-fig5\.svg/);
      expect(md).toMatch(
        /Generated by `difftry testbed fig5 --quick --scale 0.05 --warmup 0 --duration 0.3 --backoff-base-ms 25`/,
      );
      expect(md).toMatch(/exponential from 25 ms ×2 up to 250 ms, full jitter/);
      // The heaviest point's latency, beside the paper's Fig. 5(c) medians.
      expect(md).toMatch(/## Latency under the storm/);
      expect(md).toMatch(/\| DiffTry \(5, 1\) \| high \| \d+ \| \d+ \| ≈ 70 \|/);
      expect(md).toMatch(/\| DiffTry \(5, 1\) \| low \| \d+ \| \d+ \| ≈ 20 \|/);
      expect(md).toMatch(/\| uniform \(5, 5\) \| low \| \d+ \| \d+ \| ≈ 270 \|/);
      expect(outputs[0]?.stdout).toMatch(/latency at γ_low = 250 \(p50 \/ p99 ms/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
