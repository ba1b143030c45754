/**
 * The `--shard I/N --out DIR` of the validation scripts (scripts/validate-calls.ts,
 * validate-networks.ts, validate-timeouts-model.ts): which part of the cases a run takes, and
 * the writing of its shard file for `difftry merge` (docs/scale-out.md).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { toExactJson } from '../../src/experiments/shard/exactJson.js';
import {
  parseShard,
  rangeText,
  type Shard,
  shardFileName,
  shardRange,
} from '../../src/experiments/shard/shard.js';

/** The script's shard, if any, the folder its file goes to, and the cases [first, end) it runs. */
export interface ShardArgs {
  readonly shard: Shard | undefined;
  readonly out: string;
  readonly range: { readonly first: number; readonly end: number };
}

/**
 * Reads `--shard I/N` and `--out DIR` from the command line, for a run over `count` cases.
 * @throws {Error} on a bad `--shard`, or `--out` without `--shard`.
 */
export function shardArgs(count: number): ShardArgs {
  const { values } = parseArgs({
    options: { shard: { type: 'string' }, out: { type: 'string' } },
  });
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  if (values.out !== undefined && shard === undefined) throw new Error('--out: only with --shard');
  return { shard, out: values.out ?? '.', range: shardRange(count, shard) };
}

/**
 * Writes a shard's document (exact JSON) as `OUT/COMMAND.shard-I-of-N.json` and says on stderr
 * which of the `count` items (`noun`s) it ran, and in how many seconds.
 */
export function writeShardFile(
  args: ShardArgs & { readonly shard: Shard },
  command: string,
  document: unknown,
  count: number,
  noun: string,
  seconds: number,
): void {
  mkdirSync(args.out, { recursive: true });
  const path = join(args.out, shardFileName(command, args.shard));
  writeFileSync(path, `${toExactJson(document)}\n`);
  process.stderr.write(
    `shard ${args.shard.index} of ${args.shard.count}: ${rangeText(args.range, count, noun)}; ` +
      `wrote ${path} in ${seconds.toFixed(1)} s (difftry merge adds the shards up)\n`,
  );
}
