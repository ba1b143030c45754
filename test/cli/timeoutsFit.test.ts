import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latencyExampleCsv } from '../../scripts/generate-latencies.js';
import { recommendation } from '../../src/cli/timeoutsFitCommand.js';
import { parseLatencySamples } from '../../src/config/parseLatencySamples.js';
import { empiricalLatency, optimizeTimeouts } from '../../src/model/index.js';
import { runCli } from './runCli.js';

const EXAMPLE = 'examples/latencies.csv';
let directory = '';

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'difftry-timeouts-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function fileWith(name: string, text: string): Promise<string> {
  const path = join(directory, name);
  await writeFile(path, text);
  return path;
}

describe('difftry timeouts fit', () => {
  it('examples/latencies.csv is what scripts/generate-latencies.ts writes', async () => {
    expect(await readFile(EXAMPLE, 'utf8')).toBe(latencyExampleCsv());
  });

  it('prints the optimal sequence of 4 timeouts ending at t_z, E_0 and the best single timeout', async () => {
    const { code, stdout, stderr } = await runCli('timeouts', 'fit', EXAMPLE);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('examples/latencies.csv: 2000 latencies');
    expect(stdout).toMatch(/Optimal sequence \(depth 4, t_z = [\d.]+ s, the default ceiling\)/);
    expect(stdout).toMatch(/^ +4 +[\d.]+ +[\d.]+$/m);
    expect(stdout).toMatch(/^E_0 = [\d.]+ s$/m);
    expect(stdout).toMatch(/^Best single repeated timeout: [\d.]+ s, E = [\d.]+ s$/m);
  });

  it('--json: the Optimizer’s answer for the file’s samples, in seconds', async () => {
    const { code, stdout } = await runCli(
      'timeouts',
      'fit',
      EXAMPLE,
      '--json',
      '--depth',
      '3',
      '--tz',
      '1',
      '--cost',
      '0.1',
    );
    expect(code).toBe(0);
    const document = JSON.parse(stdout);
    expect(Object.keys(document).sort()).toEqual(['E0', 'recommended', 'sequence', 'single', 'tz']);
    const samples = parseLatencySamples(await readFile(EXAMPLE, 'utf8'), EXAMPLE);
    const expected = optimizeTimeouts(empiricalLatency(samples), {
      depth: 3,
      tz: 1,
      cost: { g: (t) => 0.1 * t, dg: () => 0.1 },
    });
    expect(document.sequence).toEqual(expected.sequence);
    expect(document.sequence).toHaveLength(3);
    expect(document.sequence[2]).toBe(1);
    expect(document.tz).toBe(1);
    expect(document.E0).toBe(expected.E0);
    expect(document.single).toEqual({ timeout: expected.single.timeout, E: expected.single.E });
    // The bimodal example: restart after the fast mode (0.1 s), well before the slow one.
    expect(document.sequence[0]).toBeGreaterThan(0.12);
    expect(document.sequence[1]).toBeLessThan(0.25);
  });

  it('a file without a header, with blank lines and CRLF, is read too', async () => {
    const path = await fileWith('plain.csv', '0.1\r\n0.2\r\n\r\n0.15\r\n0.5\r\n');
    const { code, stdout } = await runCli('timeouts', 'fit', path, '--json', '--depth', '2');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).sequence.length).toBeGreaterThanOrEqual(1);
  });

  it('a bad line exits 2 naming the file and the line, and prints nothing on stdout', async () => {
    const path = await fileWith('bad.csv', 'latency_s\n0.1\n0.2\nfast\n0.3\n');
    const { code, stdout, stderr } = await runCli('timeouts', 'fit', path);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `difftry: ${path}:4: expected a latency in seconds (a positive number), got "fast"\n`,
    );
  });

  it('non-positive latencies, an empty file, a missing file and bad options exit 2', async () => {
    const negative = await fileWith('negative.csv', '0.1\n-0.2\n');
    expect((await runCli('timeouts', 'fit', negative)).stderr).toContain(`${negative}:2:`);
    const zero = await fileWith('zero.csv', 'latency\n0\n');
    expect((await runCli('timeouts', 'fit', zero)).stderr).toContain(`${zero}:2:`);
    const empty = await fileWith('empty.csv', 'latency_s\n\n');
    const emptyRun = await runCli('timeouts', 'fit', empty);
    expect(emptyRun.code).toBe(2);
    expect(emptyRun.stderr).toContain('found none');
    const missing = await runCli('timeouts', 'fit', join(directory, 'missing.csv'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
    for (const option of [
      ['--depth', '0'],
      ['--tz', '-1'],
      ['--cost', 'x'],
    ]) {
      const { code, stdout } = await runCli('timeouts', 'fit', EXAMPLE, ...option);
      expect(code, option.join(' ')).toBe(2);
      expect(stdout).toBe('');
    }
  });
});

describe('difftry timeouts fit: which to use', () => {
  it('recommends the sequence within 5 % of the single timeout, the single one past it', () => {
    expect(recommendation(0.1818, 0.1801).choice).toBe('sequence');
    expect(recommendation(0.1801, 0.1801).choice).toBe('sequence');
    expect(recommendation(0.2, 0.18).choice).toBe('single');
    expect(recommendation(0.2, 0.18).extra).toBeCloseTo(1 / 9, 12);
  });

  it('says why the sequence costs more on a stationary sample, and which it recommends', async () => {
    const { code, stdout } = await runCli('timeouts', 'fit', 'examples/latencies.csv');
    expect(code).toBe(0);
    expect(stdout).toContain(
      'more than the single timeout on this sample: the price of its ceiling',
    );
    expect(stdout).toMatch(/^Recommended: the (sequence|single timeout)/m);
  });

  it('gives no ratio where the best single timeout expects no time (a subnormal sample)', async () => {
    // Found by the fuzzing suite: "costs Infinity % more" for E_single = 5e-324 s.
    const file = await fileWith('subnormal.csv', 'latency_ms\n5e-324\n5e-324\n5e-324\n0.1\n');
    const { code, stdout } = await runCli('timeouts', 'fit', file);
    expect(code).toBe(0);
    expect(stdout).not.toContain('Infinity');
    expect(stdout).toContain(
      'The sequence costs more than the single timeout (which expects 5e-324 s: no ratio) on this sample',
    );
  });
});
