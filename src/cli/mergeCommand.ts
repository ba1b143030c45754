import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import { callValidationCsv } from '../experiments/callValidation/callValidationCsv.js';
import { callValidationMarkdown } from '../experiments/callValidation/callValidationMarkdown.js';
import {
  isCallValidationShardDocument,
  mergeCallValidationShards,
} from '../experiments/callValidation/callValidationShard.js';
import { networkValidationReport } from '../experiments/networkValidation/networkValidationReport.js';
import {
  isNetworkValidationShardDocument,
  mergeNetworkValidationShards,
} from '../experiments/networkValidation/networkValidationShard.js';
import { fromExactJson } from '../experiments/shard/exactJson.js';
import { type Shard, shardOfDocument, shardOfTag } from '../experiments/shard/shard.js';
import { wholeRun } from '../experiments/shard/shardSet.js';
import { timeoutValidationCsv } from '../experiments/timeoutValidation/timeoutValidationCsv.js';
import { timeoutValidationMarkdown } from '../experiments/timeoutValidation/timeoutValidationMarkdown.js';
import {
  isTimeoutValidationShardDocument,
  mergeTimeoutValidationShards,
} from '../experiments/timeoutValidation/timeoutValidationShard.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { checkOutputPath, writeOutputFiles } from './outputPath.js';
import { sweepOutput } from './simulateSweep.js';
import { isSweepShardDocument, mergeSweepShards } from './sweepShard.js';
import { UsageError } from './UsageError.js';
import { mergeUniquenessDocuments, uniquenessRun } from './uniquenessDocument.js';
import { uniquenessOutput } from './verifyUniquenessCommand.js';

/** Options of `difftry merge`. */
export interface MergeOptions {
  readonly json?: boolean;
  /** Where the merged run's CSV rows go (the commands that write CSV). */
  readonly csv?: string;
}

/** A shard's result as read: which part of which run, and its document. */
interface Found {
  readonly file: string;
  readonly shard: Shard;
  readonly run: Readonly<Record<string, unknown>>;
  readonly document: unknown;
}

/** A command whose shards `difftry merge` adds up: how to read one, and how to print the whole. */
interface ShardedCommand {
  /** Reads a shard's document: its shard and run, or undefined when it is not one of these. */
  readonly read: (document: unknown) => Omit<Found, 'file' | 'document'> | undefined;
  /** What the whole run prints, from its shards' documents in shard order. */
  readonly output: (
    documents: readonly unknown[],
    options: MergeOptions,
    dirs: readonly string[],
  ) => Promise<CommandOutput>;
  readonly csv: boolean;
  /** With `--json`: whether the command has a JSON document. */
  readonly json: boolean;
}

const COMMANDS: Readonly<Record<string, ShardedCommand>> = {
  'verify-uniqueness': {
    read: (d) => {
      const shard = shardOfDocument(d);
      if (
        shard === undefined ||
        !Array.isArray((d as { counterexamples?: unknown }).counterexamples)
      ) {
        return undefined;
      }
      return { shard, run: uniquenessRun(d as Parameters<typeof uniquenessRun>[0]) };
    },
    output: async (documents, options, dirs) =>
      uniquenessOutput(
        mergeUniquenessDocuments(documents as Parameters<typeof mergeUniquenessDocuments>[0]),
        options.json === true,
        dirs.join(', '),
      ),
    csv: false,
    json: true,
  },
  simulate: {
    read: (d) => (isSweepShardDocument(d) ? { shard: d.shard, run: d.run } : undefined),
    output: (documents, options) =>
      sweepOutput(mergeSweepShards(documents as Parameters<typeof mergeSweepShards>[0]), options),
    csv: true,
    json: true,
  },
  'validate-calls': {
    read: (d) => (isCallValidationShardDocument(d) ? { shard: d.shard, run: d.run } : undefined),
    output: (documents, options) => {
      const { run, context } = mergeCallValidationShards(
        documents as Parameters<typeof mergeCallValidationShards>[0],
      );
      return pageOutput(
        callValidationMarkdown(run, context),
        () => callValidationCsv(run.outcomes),
        `${run.outcomes.length} cases' rows`,
        options,
      );
    },
    csv: true,
    json: false,
  },
  'validate-networks': {
    read: (d) => (isNetworkValidationShardDocument(d) ? { shard: d.shard, run: d.run } : undefined),
    output: (documents, options) => {
      const { cases, run, seconds } = mergeNetworkValidationShards(
        documents as Parameters<typeof mergeNetworkValidationShards>[0],
      );
      const { markdown, csv } = networkValidationReport(cases, run, seconds);
      return pageOutput(markdown, () => csv, `${cases.length} cases' rows`, options);
    },
    csv: true,
    json: false,
  },
  'validate-timeouts-model': {
    read: (d) => (isTimeoutValidationShardDocument(d) ? { shard: d.shard, run: d.run } : undefined),
    output: (documents, options) => {
      const { run, context } = mergeTimeoutValidationShards(
        documents as Parameters<typeof mergeTimeoutValidationShards>[0],
      );
      return pageOutput(
        timeoutValidationMarkdown(run, context),
        () => timeoutValidationCsv(run.outcomes),
        `${run.outcomes.length} points' rows`,
        options,
      );
    },
    csv: true,
    json: false,
  },
};

/**
 * A validation's merged output: its page on stdout and, with `--csv`, its CSV (`rows`, what the
 * stderr line says was written).
 */
async function pageOutput(
  page: string,
  csv: () => string,
  rows: string,
  options: MergeOptions,
): Promise<CommandOutput> {
  if (options.csv === undefined) return { stdout: page };
  await writeOutputFiles([{ path: options.csv, text: csv() }], '--csv');
  return { stdout: page, stderr: `wrote ${rows} to ${options.csv}` };
}

const NAMES = Object.keys(COMMANDS);
const SHARD_FILE = new RegExp(`^(${NAMES.join('|')})\\.shard-\\d+-of-\\d+\\.json$`);

/**
 * `difftry merge DIR…`: the shard results in the folders (`--shard I/N` runs of
 * `verify-uniqueness`, `simulate --sweep` or the call-graph, network and per-try timeout
 * validations, each writing `COMMAND.shard-I-of-N.json` to its `--out`), checked to be every
 * shard of one run once, added up into the run's own output: the same table, JSON, page or CSV
 * (and exit code) as the run made whole (docs/scale-out.md).
 *
 * @throws {UsageError} on a folder without shard results, a file that is not one, shards of
 *   different commands or runs (seed, network, version, shard count…), a shard missing or given
 *   twice, or `--csv` or `--json` for a command that writes none.
 */
export async function mergeCommand(
  dirs: readonly string[],
  options: MergeOptions = {},
): Promise<CommandOutput> {
  const found: (Found & { readonly command: string })[] = [];
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
        `${dir}: no shard results (${NAMES.map((c) => `${c}.shard-I-of-N.json`).join(', ')}, written by --shard I/N)`,
      );
    }
    for (const name of shards) found.push(await readShard(join(dir, name)));
  }
  const commands = [...new Set(found.map((f) => f.command))];
  if (commands.length > 1) {
    throw new UsageError(`cannot merge shards of different commands: ${commands.join(' and ')}`);
  }
  const name = commands[0] as string;
  const command = COMMANDS[name] as ShardedCommand;
  if (options.csv !== undefined && !command.csv) {
    throw new UsageError(`--csv: not for the shards of ${name}, which write no CSV`);
  }
  if (options.json === true && !command.json) {
    throw new UsageError(`--json: not for the shards of ${name}, which write a page`);
  }
  const whole = wholeRun(found);
  if ('problem' in whole) throw new UsageError(whole.problem);
  if (options.csv !== undefined) await checkOutputPath(options.csv, '--csv');
  return command.output(
    whole.ordered.map((f) => f.document),
    options,
    dirs,
  );
}

async function readShard(file: string): Promise<Found & { readonly command: string }> {
  const command = SHARD_FILE.exec(basename(file))?.[1] as string;
  let document: unknown;
  try {
    document = fromExactJson(await readFile(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${file}: not a shard result (${(error as Error).message})`);
  }
  const read = COMMANDS[command]?.read(document);
  const tagged = shardOfTag(basename(file));
  if (
    read === undefined ||
    tagged === undefined ||
    tagged.index !== read.shard.index ||
    tagged.count !== read.shard.count
  ) {
    throw new UsageError(`${file}: not a ${command} shard result, or not the shard its name says`);
  }
  return { ...read, file, document, command };
}

/** Registers `difftry merge`. */
export function registerMergeCommand(program: Command, emit: Emit): void {
  program
    .command('merge')
    .description(
      'add up the shard results of a run made with --shard I/N (verify-uniqueness, simulate --sweep, validate-calls, validate-networks, validate-timeouts-model)',
    )
    .argument('<dirs...>', 'folders holding the shards’ results')
    .option('--json', 'print one JSON document on stdout')
    .option(
      '--csv <file>',
      'simulate --sweep and validation (validate-*) shards: also write the rows as CSV to this file',
    )
    .action(async (dirs: string[], opts: MergeOptions) => {
      emit(await mergeCommand(dirs, opts));
    });
}
