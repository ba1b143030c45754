import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNetworkModel } from '../../src/config/index.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { analyzeNetwork } from '../../src/model/network/analyzeNetwork.js';
import { runCli } from './runCli.js';

let dir: string;
let twice: string;
let routed: string;
// A caller that calls a saturated leaf twice in a row (test/model/network/followUpCalls.test.ts:
// simulated leaf s 0.3906 ± 0.0126; 0.5529 without follow-ups, 0.4007 with them).
const TWICE = [
  'model: mixed',
  'classes:',
  '  - { name: a, retries: 1 }',
  'services:',
  '  - name: front',
  '    capacity: 100000',
  '    queue: 1000',
  '    arrivals: { a: 56 }',
  '    calls: [{ to: leaf, n: 2 }]',
  '  - { name: leaf, capacity: 100, queue: 20 }',
].join('\n');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'difftry-follow-'));
  twice = join(dir, 'twice.yaml');
  await writeFile(twice, TWICE);
  routed = join(dir, 'routed.yaml');
  await writeFile(
    routed,
    [
      'classes:',
      '  - { name: a, retries: 1 }',
      'services:',
      '  - { name: api, capacity: 100, queue: 20, arrivals: { a: 50 } }',
    ].join('\n'),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('difftry analyze --follow-ups', () => {
  it('reads the second call in a row as a follow-up: the library figures, not the default ones', async () => {
    const model = toNetworkModel(parseNetwork(TWICE, 'twice.yaml'));
    const expected = analyzeNetwork({ ...model, followUps: true });
    const withFlag = await runCli('analyze', twice, '--follow-ups', '--json');
    const without = await runCli('analyze', twice, '--json');
    expect(withFlag.code).toBe(0);
    const leaf = JSON.parse(withFlag.stdout).services.leaf;
    expect(leaf.s).toBe(expected.services.leaf?.s);
    expect(leaf.s).toBeCloseTo(0.4007, 4);
    expect(JSON.parse(without.stdout).services.leaf.s).toBeCloseTo(0.5529, 4);
  });

  it('refuses a routing network in one line, exit 2', async () => {
    const result = await runCli('analyze', routed, '--follow-ups');
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--follow-ups: only for a call graph/);
  });
});
