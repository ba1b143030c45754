/**
 * What the validations that cut into shards (`--shard I/N`) share: a shard's part of the run —
 * its outcomes, the simulation events they took, and the wall-clock context of its own run —
 * and how `difftry merge` puts the parts of every shard back into one run.
 */
import { jsonDigest } from '../shard/jsonDigest.js';
import { type Shard, shardOfDocument } from '../shard/shard.js';
import type { ValidationRunContext } from './validationFigures.js';

/** One shard's part of a validation run. */
export interface ValidationShardPart<O> {
  /** The shard's outcomes, in the cases' order. */
  readonly outcomes: readonly O[];
  /** Events the simulator processed for them. */
  readonly events: number;
  /** The shard's own wall-clock seconds and load averages. */
  readonly context: ValidationRunContext;
}

/**
 * The file a shard of a validation writes (`--shard I/N --out DIR`:
 * `COMMAND.shard-I-of-N.json`, in exact JSON), which `difftry merge` adds up into the page and
 * the CSV of the whole run.
 */
export interface ValidationShardDocument<Command extends string, O> extends ValidationShardPart<O> {
  readonly command: Command;
  readonly shard: Shard;
  readonly run: ValidationRunIdentity;
}

/**
 * What every shard of one validation run shares; `difftry merge` refuses shards that differ in
 * any. (A type, not an interface: `difftry merge` reads it as a record of fields.)
 */
export type ValidationRunIdentity = {
  /** The code measured (`sourceRevision`). */
  readonly revision: string;
  /** sha-256 of every case of the run (ids, networks, parameters), first 16 hex digits. */
  readonly cases: string;
  readonly caseCount: number;
};

/** The {@link ValidationRunIdentity} of a run of `cases` on the code at `revision`. */
export function validationRunIdentity(
  revision: string,
  cases: readonly unknown[],
): ValidationRunIdentity {
  return { revision, cases: jsonDigest(cases), caseCount: cases.length };
}

/** The document a shard of `command` writes, from every case of the run and its part of them. */
export function validationShardDocument<Command extends string, O>(
  command: Command,
  shard: Shard,
  cases: readonly unknown[],
  part: { readonly outcomes: readonly O[]; readonly events: number },
  context: ValidationRunContext,
): ValidationShardDocument<Command, O> {
  return {
    command,
    shard,
    run: validationRunIdentity(context.revision, cases),
    outcomes: part.outcomes,
    events: part.events,
    context,
  };
}

/**
 * The whole run from its shards' parts, in shard order (every shard of one run once, checked by
 * the caller): the outcomes one after the other, the events and seconds added up, the load
 * averages of the first shard's start and the last one's end.
 * @throws {Error} when `shards` is empty.
 */
export function mergeValidationShards<O>(shards: readonly ValidationShardPart<O>[]): {
  readonly run: { readonly outcomes: readonly O[]; readonly events: number };
  readonly context: ValidationRunContext;
} {
  const [first] = shards;
  const last = shards.at(-1);
  if (first === undefined || last === undefined) throw new Error('no shard to merge');
  let events = 0;
  let seconds = 0;
  for (const d of shards) {
    events += d.events;
    seconds += d.context.seconds;
  }
  return {
    run: { outcomes: shards.flatMap((d) => d.outcomes), events },
    context: { ...first.context, seconds, loadAtEnd: last.context.loadAtEnd },
  };
}

/**
 * Whether `document` (read from a shard file) is a shard of the validation `command`: its
 * command, its shard and run, and the arrays and figures `fields` names (`outcomes: 'array'`).
 */
export function isValidationShard(
  document: unknown,
  command: string,
  fields: Readonly<Record<string, 'array' | 'number'>>,
): boolean {
  const d = document as { command?: unknown; run?: unknown; [field: string]: unknown } | null;
  if (
    shardOfDocument(d) === undefined ||
    d?.command !== command ||
    typeof d.run !== 'object' ||
    d.run === null
  ) {
    return false;
  }
  return Object.entries(fields).every(([field, kind]) =>
    kind === 'array' ? Array.isArray(d[field]) : typeof d[field] === 'number',
  );
}
