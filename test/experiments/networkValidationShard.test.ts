import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Case,
  networkValidationCases,
} from '../../src/experiments/networkValidation/networkValidationCases.js';
import { networkValidationReport } from '../../src/experiments/networkValidation/networkValidationReport.js';
import { networkValidationShardDocument } from '../../src/experiments/networkValidation/networkValidationShard.js';
import { runNetworkValidation } from '../../src/experiments/networkValidation/runNetworkValidation.js';
import { toExactJson } from '../../src/experiments/shard/exactJson.js';
import { shardRange, shardTag } from '../../src/experiments/shard/shard.js';
import { runCli } from '../cli/runCli.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Four of the validation's quickest cases: a DAG, a cyclic network, short delays, m = 5. */
function smallCases(): Case[] {
  const ids = ['mubench-100', 'cyclic-200', 'mubench-100 20 ms', 'cyclic-200 m=5'];
  const all = networkValidationCases();
  return ids.map((id) => {
    const found = all.find((c) => c.id === id);
    if (found === undefined) throw new Error(`no case ${id}`);
    return found;
  });
}

describe('the network validation in shards', () => {
  it('merges (difftry merge) into exactly the page and CSV of the whole run', async () => {
    const cases = smallCases();
    const whole = runNetworkValidation(cases);
    // The page's wall-clock seconds are the shards' summed: 1.25 + 2.5 as 3.75 in the whole run.
    const shardSeconds = [1.25, 2.5];
    const shardDirs: string[] = [];
    for (let index = 0; index < 2; index++) {
      const shard = { index, count: 2 };
      const part = runNetworkValidation(cases, { range: shardRange(cases.length, shard) });
      expect(new Set(part.rows.map((r) => r.c.id)).size).toBe(2);
      const dir = await mkdtemp(join(tmpdir(), 'difftry-validate-networks-shard-'));
      dirs.push(dir);
      shardDirs.push(dir);
      const document = networkValidationShardDocument(shard, cases, part, {
        revision: 'abc1234',
        seconds: shardSeconds[index] as number,
      });
      await writeFile(
        join(dir, `validate-networks.${shardTag(shard)}.json`),
        toExactJson(document),
      );
    }
    const { markdown, csv } = networkValidationReport(cases, whole, 3.75);
    const csvFile = join(shardDirs[0] as string, 'merged.csv');
    const merged = await runCli('merge', ...[...shardDirs].reverse(), '--csv', csvFile);
    expect(merged.code).toBe(0);
    expect(merged.stdout).toBe(markdown);
    expect(await readFile(csvFile, 'utf8')).toBe(csv);
    expect(merged.stderr).toContain(`wrote 4 cases' rows to ${csvFile}`);
    // The figures are real: every case was simulated, and the short-delay case has its residual
    // analysis (NaN elsewhere, kept through the shard files).
    expect(whole.events).toBeGreaterThan(0);
    expect(whole.rows.filter((r) => Number.isFinite(r.predResidual)).length).toBeGreaterThan(0);
    expect(whole.rows.filter((r) => Number.isNaN(r.predResidual)).length).toBeGreaterThan(0);

    const json = await runCli('merge', ...shardDirs, '--json');
    expect(json.code).toBe(2);
    expect(json.stderr).toMatch(/^difftry: --json: not for the shards of validate-networks/);
  }, 60_000);
});
