import { itemsDigest } from '../shard/itemsDigest.js';
import type { Shard } from '../shard/shard.js';
import { isValidationShard, mergeValidationShards } from '../simulation/validationShards.js';
import type { Case } from './callValidationCases.js';
import type { CallValidationContext } from './callValidationMarkdown.js';
import type { CallValidationRun, Outcome } from './runCallValidation.js';

/**
 * The file a shard of the call-graph validation writes (`npx tsx scripts/validate-calls.ts
 * --shard I/N --out DIR`: `validate-calls.shard-I-of-N.json`, in exact JSON), which
 * `difftry merge` adds up into the page and the CSV of the whole run.
 */
export interface CallValidationShardDocument {
  readonly command: 'validate-calls';
  readonly shard: Shard;
  /** What every shard of one run shares; `difftry merge` refuses shards that differ in any. */
  readonly run: {
    /** The code measured (`sourceRevision`). */
    readonly revision: string;
    /** sha-256 of every case of the run (ids, networks, run lengths), first 16 hex digits. */
    readonly cases: string;
    readonly caseCount: number;
  };
  /** The shard's cases, analysed and simulated, with the events its runs processed. */
  readonly outcomes: readonly Outcome[];
  readonly events: number;
  /** The shard's own wall-clock seconds and load averages. */
  readonly context: CallValidationContext;
}

/** The first 16 hex digits of the sha-256 of the cases: two runs, the same cases. */
export function casesDigest(cases: readonly Case[]): string {
  return itemsDigest(cases);
}

/** The document a shard writes, from the cases it ran. */
export function callValidationShardDocument(
  shard: Shard,
  cases: readonly Case[],
  run: CallValidationRun,
  context: CallValidationContext,
): CallValidationShardDocument {
  return {
    command: 'validate-calls',
    shard,
    run: { revision: context.revision, cases: casesDigest(cases), caseCount: cases.length },
    outcomes: run.outcomes,
    events: run.events,
    context,
  };
}

/**
 * The whole run from its shards' documents, in shard order (every shard of one run once,
 * checked by the caller): the outcomes one after the other, the events and seconds added up,
 * the load averages of the first shard's start and the last one's end.
 */
export function mergeCallValidationShards(shards: readonly CallValidationShardDocument[]): {
  readonly run: CallValidationRun;
  readonly context: CallValidationContext;
} {
  return mergeValidationShards(shards);
}

/** Whether `document` (read from a shard file) has the shape of a {@link CallValidationShardDocument}. */
export function isCallValidationShardDocument(
  document: unknown,
): document is CallValidationShardDocument {
  return isValidationShard(document, 'validate-calls', { outcomes: 'array', events: 'number' });
}
