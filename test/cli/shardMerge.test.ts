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
