import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Case,
  callValidationCases,
} from '../../src/experiments/callValidation/callValidationCases.js';
import { callValidationCsv } from '../../src/experiments/callValidation/callValidationCsv.js';
import { callValidationMarkdown } from '../../src/experiments/callValidation/callValidationMarkdown.js';
import { callValidationShardDocument } from '../../src/experiments/callValidation/callValidationShard.js';
import { runCallValidation } from '../../src/experiments/callValidation/runCallValidation.js';
import { toExactJson } from '../../src/experiments/shard/exactJson.js';
import { shardRange, shardTag } from '../../src/experiments/shard/shard.js';
import { runCli } from '../cli/runCli.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The validation's smallest generated call graph and two 40-service chains, on short runs. */
function smallCases(): Case[] {
  const all = callValidationCases();
  const generated = all
    .filter((c) => c.group !== 'chain')
    .reduce((a, b) => (b.network.services.length < a.network.services.length ? b : a));
  const chains = all.filter((c) => c.group === 'chain' && c.network.services.length === 40);
  const run = { replications: 2, warmup: 2, duration: 4, window: 2 };
  return [generated, chains[0], chains[1]].map((c) => ({ ...(c as Case), run }) as Case);
}

describe('the call-graph validation in shards', () => {
  it('merges (difftry merge) into exactly the page and CSV of the whole run', async () => {
    const cases = smallCases();
    // Times come from the clock: a fixed one makes them alike, so the whole text can be compared.
    const now = () => 0;
    const context = {
      revision: 'abc1234',
      seconds: 0,
      loadAtStart: [0.5, 0.5, 0.5],
      loadAtEnd: [1, 1, 1],
    };
    const whole = runCallValidation(cases, { now });
    const shardDirs: string[] = [];
    for (let index = 0; index < 2; index++) {
      const shard = { index, count: 2 };
      const part = runCallValidation(cases, { now, range: shardRange(cases.length, shard) });
      expect(part.outcomes).toHaveLength(index === 0 ? 1 : 2);
      const dir = await mkdtemp(join(tmpdir(), 'difftry-validate-shard-'));
      dirs.push(dir);
      shardDirs.push(dir);
      await writeFile(
        join(dir, `validate-calls.${shardTag(shard)}.json`),
        toExactJson(callValidationShardDocument(shard, cases, part, context)),
      );
    }
    const csv = join(shardDirs[0] as string, 'merged.csv');
    const merged = await runCli('merge', ...shardDirs.reverse(), '--csv', csv);
    expect(merged.code).toBe(0);
    expect(merged.stdout).toBe(
      callValidationMarkdown(whole, { ...context, loadAtStart: [0.5, 0.5, 0.5] }),
    );
    expect(await readFile(csv, 'utf8')).toBe(callValidationCsv(whole.outcomes));
    // The figures are real: the simulated rejection of the overloaded chain is not zero.
    expect(whole.outcomes.map((o) => o.simulated.events).every((e) => e > 0)).toBe(true);

    const json = await runCli('merge', ...shardDirs, '--json');
    expect(json.code).toBe(2);
    expect(json.stderr).toMatch(/^difftry: --json: not for the shards of validate-calls/);
  }, 120_000);
});
