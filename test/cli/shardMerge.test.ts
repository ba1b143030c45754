import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { UniquenessDocument } from '../../src/cli/uniquenessDocument.js';
import { shardRange } from '../../src/experiments/shard/shard.js';
import { runCli } from './runCli.js';

const run = promisify(execFile);
const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;
/** Call graphs, so that the run finds a counterexample (a bistable configuration) to merge too. */
const CHECK = ['--form', 'calls', '--graphs', '6', '--configs', '6', '--inits', '4', '--seed', '3'];

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'difftry-shards-'));
  dirs.push(dir);
  return dir;
}

/** A file's text, its own folder (where the run wrote it) named OUT. */
async function written(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined;
  return (await readFile(path, 'utf8')).replaceAll(dirname(path), 'OUT');
}

/** A run's figures that do not depend on how it ran (threads, time), counterexample files read. */
async function figures(document: UniquenessDocument) {
  const {
    threads: _threads,
    elapsedSeconds: _elapsed,
    casesPerSecond: _rate,
    cpuSeconds: _cpu,
    casesPerCpuSecond: _cpuRate,
    shard: _shard,
    counterexamples,
    ...rest
  } = document;
  return {
    ...rest,
    counterexamples: await Promise.all(
      counterexamples.map(async ({ network, fixedPoints, ...c }) => ({
        ...c,
        network: await written(network),
        fixedPoints: await written(fixedPoints),
      })),
    ),
  };
}

describe('--shard I/N and difftry merge', () => {
  it('cuts the jobs into contiguous blocks that cover every job once', () => {
    for (const [items, count] of [
      [36, 3],
      [10, 4],
      [3, 8],
      [1_000_003, 7],
    ] as const) {
      const ranges = Array.from({ length: count }, (_, index) =>
        shardRange(items, { index, count }),
      );
      expect(ranges[0]?.first).toBe(0);
      expect(ranges.at(-1)?.end).toBe(items);
      for (let i = 1; i < count; i++) expect(ranges[i]?.first).toBe(ranges[i - 1]?.end);
      const sizes = ranges.map((r) => r.end - r.first);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });

  it('merges three shard processes into exactly the single run', async () => {
    const whole = await tempDir();
    const single = await runCli(
      'verify-uniqueness',
      ...CHECK,
      '--threads',
      '1',
      '--out',
      whole,
      '--json',
    );
    expect(single.code).toBe(1); // the run finds a bistable configuration
    const wholeDocument = JSON.parse(single.stdout) as UniquenessDocument;
    expect(wholeDocument.counterexamples.length).toBeGreaterThan(0);

    // Three local processes, side by side, as three pods of an Indexed Job would run.
    const shardDirs = await Promise.all([0, 1, 2].map(() => tempDir()));
    await Promise.all(
      shardDirs.map((out, index) =>
        run(
          process.execPath,
          [
            '--import',
            'tsx',
            MAIN,
            'verify-uniqueness',
            ...CHECK,
            '--threads',
            '1',
            '--shard',
            `${index}/3`,
            '--out',
            out,
          ],
          { timeout: 60_000 },
        ).catch((error: { code?: number }) => {
          // A shard that holds the counterexample exits 1, as the whole run does.
          if (error.code !== 1) throw error;
        }),
      ),
    );
    const merged = await runCli('merge', ...shardDirs, '--json');
    expect(merged.code).toBe(1);
    expect(merged.stderr).toMatch(/converged to two distinct fixed points/);
    const mergedDocument = JSON.parse(merged.stdout) as UniquenessDocument;
    expect(mergedDocument.shard).toBeUndefined();
    expect(mergedDocument.threads).toBe(3);
    expect(await figures(mergedDocument)).toStrictEqual(await figures(wholeDocument));
    // Bit for bit: the same JSON once the run's own times are set aside.
    expect(JSON.stringify(await figures(mergedDocument))).toBe(
      JSON.stringify(await figures(wholeDocument)),
    );
  }, 120_000);

  it('merges simulate --sweep shard processes into exactly the single run: table, JSON, CSV', async () => {
    const sweep = [
      'simulate',
      '--example',
      'two-tier',
      '--sweep',
      'frontend.low=20:60:10',
      '--duration',
      '3',
      '--replications',
      '2',
      '--seed',
      '5',
      '--timeout',
      '300',
    ];
    const dir = await tempDir();
    const table = await runCli(...sweep, '--csv', join(dir, 'whole.csv'));
    const json = await runCli(...sweep, '--json');
    expect([table.code, json.code]).toStrictEqual([0, 0]);
    const shardDirs = await Promise.all([0, 1, 2].map(() => tempDir()));
    const shards = await Promise.all(
      shardDirs.map((out, index) =>
        run(
          process.execPath,
          ['--import', 'tsx', MAIN, ...sweep, '--shard', `${index}/3`, '--out', out],
          { timeout: 60_000 },
        ),
      ),
    );
    // The last line: a progress bar may come first on a slow machine.
    expect(shards.map((s) => s.stderr.trim().split('\n').at(-1))).toStrictEqual([
      `difftry: shard 0 of 3: point 1 of 5; wrote ${shardDirs[0]}/simulate.shard-0-of-3.json (difftry merge adds the shards up)`,
      `difftry: shard 1 of 3: points 2–3 of 5; wrote ${shardDirs[1]}/simulate.shard-1-of-3.json (difftry merge adds the shards up)`,
      `difftry: shard 2 of 3: points 4–5 of 5; wrote ${shardDirs[2]}/simulate.shard-2-of-3.json (difftry merge adds the shards up)`,
    ]);
    // Any order of folders: the shards say which part they are.
    const mergedDirs = [shardDirs[2], shardDirs[0], shardDirs[1]] as string[];
    const mergedTable = await runCli('merge', ...mergedDirs, '--csv', join(dir, 'merged.csv'));
    const mergedJson = await runCli('merge', ...mergedDirs, '--json');
    expect(mergedTable.code).toBe(0);
    expect(mergedTable.stdout).toBe(table.stdout);
    expect(mergedJson.stdout).toBe(json.stdout);
    const csv = await readFile(join(dir, 'whole.csv'), 'utf8');
    expect(await readFile(join(dir, 'merged.csv'), 'utf8')).toBe(csv);
    expect(csv.trim().split('\n')).toHaveLength(1 + 5 * 2); // five points, two classes
    // Every point once, in order.
    const values = (JSON.parse(json.stdout) as { points: { value: number }[] }).points.map(
      (p) => p.value,
    );
    expect(values).toStrictEqual([20, 30, 40, 50, 60]);
  }, 120_000);

  it('refuses sweeps of another run or command, and options that do not go together', async () => {
    const base = ['simulate', '--example', 'two-tier', '--sweep', 'frontend.low=20:40:20'];
    const short = ['--duration', '2', '--replications', '1'];
    const a = await tempDir();
    const b = await tempDir();
    const u = await tempDir();
    await runCli(...base, ...short, '--shard', '0/2', '--out', a);
    await runCli(...base, ...short, '--seed', '9', '--shard', '1/2', '--out', b);
    await runCli(
      'verify-uniqueness',
      ...['--graphs', '2', '--configs', '2', '--inits', '2', '--threads', '1'],
      ...['--shard', '1/2', '--out', u],
    );
    const cases: [string[], RegExp][] = [
      [['merge', a, b], /^cannot merge shards of different runs: seed 9 in .*, 1 in /],
      [
        ['merge', a, u],
        /^cannot merge shards of different commands: simulate and verify-uniqueness$/,
      ],
      [
        ['merge', u, '--csv', join(u, 'x.csv')],
        /^--csv: not for the shards of verify-uniqueness, which write no CSV$/,
      ],
      [['simulate', '--example', 'hotel', '--shard', '0/2'], /^--shard: only with --sweep/],
      [[...base, '--out', a], /^--out: only with --shard/],
      [[...base, '--shard', '0/2', '--csv', 'x.csv'], /^--csv: not with --shard/],
      [[...base, '--shard', '3/2'], /^--shard: expected I\/N with 0 ≤ I < N/],
    ];
    for (const [argv, message] of cases) {
      const { code, stdout, stderr } = await runCli(...argv);
      expect({ code, stdout }).toStrictEqual({ code: 2, stdout: '' });
      expect(stderr.split('\n')).toHaveLength(2);
      expect(stderr.replace(/^difftry: /, '').trimEnd()).toMatch(message);
    }
  });

  it('refuses shards of different runs, a missing or doubled shard, in one line', async () => {
    const a = await tempDir();
    const b = await tempDir();
    const c = await tempDir();
    const small = ['--graphs', '2', '--configs', '2', '--inits', '2', '--threads', '1'];
    await runCli('verify-uniqueness', ...small, '--seed', '1', '--shard', '0/2', '--out', a);
    await runCli('verify-uniqueness', ...small, '--seed', '2', '--shard', '1/2', '--out', b);
    await runCli('verify-uniqueness', ...small, '--seed', '1', '--shard', '0/2', '--out', c);
    const empty = await tempDir();
    const broken = await tempDir();
    await writeFile(join(broken, 'verify-uniqueness.shard-0-of-1.json'), '{"seed": 1');
    const cases: [string[], RegExp][] = [
      [[a, b], /^cannot merge shards of different runs: seed 2 in .*, 1 in /],
      [[a], /^shard 1 of 2 missing: the run is not whole$/],
      [[a, c], /^shard 0 of 2 is given twice: /],
      [[empty], /no shard results \(verify-uniqueness\.shard-I-of-N\.json/],
      [[broken], /verify-uniqueness\.shard-0-of-1\.json: not a shard result/],
      [[join(empty, 'nope')], /nope: cannot read/],
    ];
    for (const [argv, message] of cases) {
      const { code, stdout, stderr } = await runCli('merge', ...argv);
      expect({ code, stdout }).toStrictEqual({ code: 2, stdout: '' });
      expect(stderr.split('\n')).toHaveLength(2);
      expect(stderr.replace(/^difftry: /, '').trimEnd()).toMatch(message);
    }
    const bad = await runCli('verify-uniqueness', ...small, '--shard', '2/2');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^difftry: --shard: expected I\/N with 0 ≤ I < N/);
  });
});
