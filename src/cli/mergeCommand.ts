import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { fromExactJson } from '../experiments/shard/exactJson.js';
import { type Shard, shardOfTag } from '../experiments/shard/shard.js';
import { wholeRun } from '../experiments/shard/shardSet.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { checkOutputPath } from './outputPath.js';
import { sweepOutput } from './simulateSweep.js';
import { isSweepShardDocument, mergeSweepShards, type SweepShardDocument } from './sweepShard.js';
import { UsageError } from './UsageError.js';
import {
  mergeUniquenessDocuments,
  type UniquenessDocument,
  uniquenessRun,
} from './uniquenessDocument.js';
import { uniquenessOutput } from './verifyUniquenessCommand.js';

/** The commands whose shards `difftry merge` adds up, each writing `COMMAND.shard-I-of-N.json`. */
const SHARDED = ['verify-uniqueness', 'simulate'] as const;
type Sharded = (typeof SHARDED)[number];

const SHARD_FILE = new RegExp(`^(${SHARDED.join('|')})\\.shard-\\d+-of-\\d+\\.json$`);

/** A shard's result as read, by the command that wrote it. */
type Found =
  | {
      readonly command: 'verify-uniqueness';
      readonly file: string;
      readonly document: UniquenessDocument;
      readonly shard: Shard;
      readonly run: Readonly<Record<string, unknown>>;
    }
  | {
      readonly command: 'simulate';
      readonly file: string;
      readonly document: SweepShardDocument;
      readonly shard: Shard;
      readonly run: Readonly<Record<string, unknown>>;
    };

/**
 * `difftry merge DIR…`: the shard results in the folders (`--shard I/N` runs of
 * `verify-uniqueness` or `simulate --sweep`, each writing `COMMAND.shard-I-of-N.json` to its
 * `--out`), checked to be every shard of one run once, added up into the run's own output: the
 * same table or JSON (and CSV, exit code) as the run made whole (docs/scale-out.md).
 *
 * @throws {UsageError} on a folder without shard results, a file that is not one, shards of
 *   different commands or runs (seed, network, version, shard count…), a shard missing or given
 *   twice, or `--csv` for a command that writes none.
 */
export async function mergeCommand(
  dirs: readonly string[],
  options: { readonly json?: boolean; readonly csv?: string } = {},
): Promise<CommandOutput> {
  const found: Found[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      throw new UsageError(`${dir}: cannot read (${(error as Error).message})`);
    }
    const shards = names.filter((name) => SHARD_FILE.test(name)).sort();
    if (shards.length === 0) {
      throw new UsageError(
        `${dir}: no shard results (${SHARDED.map((c) => `${c}.shard-I-of-N.json`).join(' or ')}, written by --shard I/N)`,
      );
    }
    for (const name of shards) found.push(await readShard(join(dir, name)));
  }
  const commands = [...new Set(found.map((f) => f.command))];
  if (commands.length > 1) {
    throw new UsageError(`cannot merge shards of different commands: ${commands.join(' and ')}`);
  }
  if (options.csv !== undefined && commands[0] !== 'simulate') {
    throw new UsageError('--csv: only for the shards of simulate --sweep');
  }
  const whole = wholeRun(found);
  if ('problem' in whole) throw new UsageError(whole.problem);
  const ordered = whole.ordered;
  if (options.csv !== undefined) await checkOutputPath(options.csv, '--csv');
  if (ordered[0]?.command === 'simulate') {
    return sweepOutput(
      mergeSweepShards(ordered.map((f) => f.document as SweepShardDocument)),
      options,
    );
  }
  return uniquenessOutput(
    mergeUniquenessDocuments(ordered.map((f) => f.document as UniquenessDocument)),
    options.json === true,
    dirs.join(', '),
  );
}

async function readShard(file: string): Promise<Found> {
  const command = SHARD_FILE.exec(file.slice(file.lastIndexOf('/') + 1))?.[1] as Sharded;
  let document: unknown;
  try {
    document = fromExactJson(await readFile(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${file}: not a shard result (${(error as Error).message})`);
  }
  const tagged = shardOfTag(file);
  const shard = (document as { shard?: Shard } | null)?.shard;
  const named =
    tagged !== undefined && tagged.index === shard?.index && tagged.count === shard.count;
  if (command === 'simulate' && named && isSweepShardDocument(document)) {
    return { command, file, document, shard: document.shard, run: document.run };
  }
  if (command === 'verify-uniqueness' && named && isUniquenessShard(document)) {
    return { command, file, document, shard: document.shard, run: uniquenessRun(document) };
  }
  throw new UsageError(`${file}: not a ${command} shard result, or not the shard its name says`);
}

function isUniquenessShard(document: unknown): document is UniquenessDocument & { shard: Shard } {
  const d = document as Partial<UniquenessDocument> | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    typeof d.shard?.index === 'number' &&
    typeof d.shard.count === 'number' &&
    Array.isArray(d.counterexamples)
  );
}

/** Registers `difftry merge`. */
export function registerMergeCommand(program: Command, emit: Emit): void {
  program
    .command('merge')
    .description(
      'add up the shard results of a run made with --shard I/N (verify-uniqueness, simulate --sweep)',
    )
    .argument('<dirs...>', 'folders holding the shards’ results')
    .option('--json', 'print one JSON document on stdout')
    .option('--csv <file>', 'simulate --sweep shards: also write the rows as CSV to this file')
    .action(async (dirs: string[], opts: { json?: boolean; csv?: string }) => {
      emit(await mergeCommand(dirs, opts));
    });
}
