import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { shardOfTag } from '../experiments/shard/shard.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { UsageError } from './UsageError.js';
import {
  mergeUniquenessDocuments,
  runMismatch,
  type UniquenessDocument,
} from './uniquenessDocument.js';
import { uniquenessOutput } from './verifyUniquenessCommand.js';

/** The shard results `difftry merge` reads: `COMMAND.shard-I-of-N.json`. */
const SHARD_FILE = /^(verify-uniqueness)\.shard-\d+-of-\d+\.json$/;

/**
 * `difftry merge DIR…`: the shard results in the folders (`--shard I/N` runs of
 * `verify-uniqueness`, each writing `verify-uniqueness.shard-I-of-N.json` to its `--out`), checked
 * to be every shard of one run once, added up into the run's own output: the same table or JSON
 * and exit code as the run made whole (docs/scale-out.md).
 *
 * @throws {UsageError} on a folder without shard results, a file that is not one, shards of
 *   different runs (seed, network, version, shard count), or a shard missing or given twice.
 */
export async function mergeCommand(
  dirs: readonly string[],
  options: { readonly json?: boolean } = {},
): Promise<CommandOutput> {
  const found: { file: string; document: UniquenessDocument }[] = [];
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
        `${dir}: no shard results (verify-uniqueness.shard-I-of-N.json, written by --shard I/N)`,
      );
    }
    for (const name of shards) {
      const file = join(dir, name);
      found.push({ file, document: await readShard(file) });
    }
  }
  const mismatch = runMismatch(found);
  if (mismatch !== undefined) {
    throw new UsageError(`cannot merge shards of different runs: ${mismatch}`);
  }
  const count = found[0]?.document.shard?.count ?? 0;
  const byIndex = new Map<number, string>();
  for (const { file, document } of found) {
    const index = document.shard?.index as number;
    const twice = byIndex.get(index);
    if (twice !== undefined) {
      throw new UsageError(`shard ${index} of ${count} is given twice: ${twice} and ${file}`);
    }
    byIndex.set(index, file);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    throw new UsageError(
      `shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} of ${count} missing: the run is not whole`,
    );
  }
  const ordered = [...found].sort(
    (a, b) => (a.document.shard?.index ?? 0) - (b.document.shard?.index ?? 0),
  );
  return uniquenessOutput(
    mergeUniquenessDocuments(ordered.map((f) => f.document)),
    options.json === true,
    dirs.join(', '),
  );
}

async function readShard(file: string): Promise<UniquenessDocument> {
  let document: unknown;
  try {
    document = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${file}: not a shard result (${(error as Error).message})`);
  }
  const shard = (document as { shard?: unknown } | null)?.shard as
    | { index?: unknown; count?: unknown }
    | undefined;
  const tagged = shardOfTag(file);
  if (
    typeof document !== 'object' ||
    document === null ||
    typeof shard?.index !== 'number' ||
    typeof shard.count !== 'number' ||
    tagged === undefined ||
    tagged.index !== shard.index ||
    tagged.count !== shard.count ||
    !Array.isArray((document as { counterexamples?: unknown }).counterexamples)
  ) {
    throw new UsageError(
      `${file}: not a verify-uniqueness shard result, or not the shard its name says`,
    );
  }
  return document as UniquenessDocument;
}

/** Registers `difftry merge`. */
export function registerMergeCommand(program: Command, emit: Emit): void {
  program
    .command('merge')
    .description('add up the shard results of a run made with --shard I/N (verify-uniqueness)')
    .argument('<dirs...>', 'folders holding the shards’ results')
    .option('--json', 'print one JSON document on stdout')
    .action(async (dirs: string[], opts: { json?: boolean }) => {
      emit(await mergeCommand(dirs, opts));
    });
}
