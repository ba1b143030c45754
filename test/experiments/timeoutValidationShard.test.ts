import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toExactJson } from '../../src/experiments/shard/exactJson.js';
import { shardRange, shardTag } from '../../src/experiments/shard/shard.js';
import { runTimeoutValidation } from '../../src/experiments/timeoutValidation/runTimeoutValidation.js';
import {
  type Case,
  timeoutValidationCases,
} from '../../src/experiments/timeoutValidation/timeoutValidationCases.js';
import { timeoutValidationCsv } from '../../src/experiments/timeoutValidation/timeoutValidationCsv.js';
import { timeoutValidationMarkdown } from '../../src/experiments/timeoutValidation/timeoutValidationMarkdown.js';
import { timeoutValidationShardDocument } from '../../src/experiments/timeoutValidation/timeoutValidationShard.js';
import { runCli } from '../cli/runCli.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Three of the validation's quickest one-service points, one of them bistable. */
function smallCases(): Case[] {
  const ids = ['m=10 k=1 ρ=0.3 T=2/μ', 'm=50 k=5 ρ=0.5 T=20/μ', 'm=10 k=1 ρ=0.7 T=20/μ'];
  const all = timeoutValidationCases();
  return ids.map((id) => {
    const found = all.find((c) => c.id === id);
    if (found === undefined) throw new Error(`no case ${id}`);
    return found;
  });
}

describe('the per-try timeout validation in shards', () => {
  it('merges (difftry merge) into exactly the page and CSV of the whole run', async () => {
    const cases = smallCases();
    // Times come from the clock: a fixed one makes them alike, so the whole text can be compared.
    const now = () => 0;
    const contexts = [
      { revision: 'abc1234', seconds: 1.25, loadAtStart: [0.5, 0.5, 0.5], loadAtEnd: [2, 2, 2] },
      { revision: 'abc1234', seconds: 2.5, loadAtStart: [3, 3, 3], loadAtEnd: [1, 1, 1] },
    ];
    const whole = runTimeoutValidation(cases, { now });
    const shardDirs: string[] = [];
    for (let index = 0; index < 2; index++) {
      const shard = { index, count: 2 };
      const part = runTimeoutValidation(cases, { now, range: shardRange(cases.length, shard) });
      expect(part.outcomes).toHaveLength(index === 0 ? 1 : 2);
      const dir = await mkdtemp(join(tmpdir(), 'difftry-validate-timeouts-shard-'));
      dirs.push(dir);
      shardDirs.push(dir);
      await writeFile(
        join(dir, `validate-timeouts-model.${shardTag(shard)}.json`),
        toExactJson(
          timeoutValidationShardDocument(
            shard,
            cases,
            part,
            contexts[index] as (typeof contexts)[0],
          ),
        ),
      );
    }
    const csv = join(shardDirs[0] as string, 'merged.csv');
    const merged = await runCli('merge', ...[...shardDirs].reverse(), '--csv', csv);
    expect(merged.code).toBe(0);
    // The whole run's context: the seconds summed, the first shard's start, the last one's end.
    expect(merged.stdout).toBe(
      timeoutValidationMarkdown(whole, {
        revision: 'abc1234',
        seconds: 3.75,
        loadAtStart: [0.5, 0.5, 0.5],
        loadAtEnd: [1, 1, 1],
      }),
    );
    expect(await readFile(csv, 'utf8')).toBe(timeoutValidationCsv(whole.outcomes));
    expect(merged.stderr).toContain(`wrote 3 points' rows to ${csv}`);
    // The figures are real: every point was simulated, one is bistable, the orbit law ran.
    expect(whole.outcomes.every((o) => o.simulated.events > 0)).toBe(true);
    expect(whole.outcomes.some((o) => o.report.equilibria.length === 2)).toBe(true);
    expect(whole.outcomes.some((o) => o.orbit !== undefined)).toBe(true);

    const json = await runCli('merge', ...shardDirs, '--json');
    expect(json.code).toBe(2);
    expect(json.stderr).toMatch(/^difftry: --json: not for the shards of validate-timeouts-model/);
  }, 60_000);
});
