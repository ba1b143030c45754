import { itemsDigest } from '../shard/itemsDigest.js';
import type { Shard } from '../shard/shard.js';
import { isValidationShard, mergeValidationShards } from '../simulation/validationShards.js';
import type { Outcome, TimeoutValidationRun } from './runTimeoutValidation.js';
import type { Case } from './timeoutValidationCases.js';
import type { TimeoutValidationContext } from './timeoutValidationMarkdown.js';

/**
 * The file a shard of the per-try timeout validation writes (`npx tsx
 * scripts/validate-timeouts-model.ts --shard I/N --out DIR`:
 * `validate-timeouts-model.shard-I-of-N.json`, in exact JSON), which `difftry merge` adds up
 * into the page and the CSV of the whole run.
 */
export interface TimeoutValidationShardDocument {
  readonly command: 'validate-timeouts-model';
  readonly shard: Shard;
  /** What every shard of one run shares; `difftry merge` refuses shards that differ in any. */
  readonly run: {
    /** The code measured (`sourceRevision`). */
    readonly revision: string;
    /** sha-256 of every point of the run (ids, networks, parameters), first 16 hex digits. */
    readonly cases: string;
    readonly caseCount: number;
  };
  /** The shard's points, analysed and simulated, with the events its runs processed. */
  readonly outcomes: readonly Outcome[];
  readonly events: number;
  /** The shard's own wall-clock seconds and load averages. */
  readonly context: TimeoutValidationContext;
}

/** The document a shard writes, from every point of the run (`cases`) and its part of them. */
export function timeoutValidationShardDocument(
  shard: Shard,
  cases: readonly Case[],
  run: TimeoutValidationRun,
  context: TimeoutValidationContext,
): TimeoutValidationShardDocument {
  return {
    command: 'validate-timeouts-model',
    shard,
    run: { revision: context.revision, cases: itemsDigest(cases), caseCount: cases.length },
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
export function mergeTimeoutValidationShards(shards: readonly TimeoutValidationShardDocument[]): {
  readonly run: TimeoutValidationRun;
  readonly context: TimeoutValidationContext;
} {
  return mergeValidationShards(shards);
}

/**
 * Whether `document` (read from a shard file) has the shape of a
 * {@link TimeoutValidationShardDocument}.
 */
export function isTimeoutValidationShardDocument(
  document: unknown,
): document is TimeoutValidationShardDocument {
  return isValidationShard(document, 'validate-timeouts-model', {
    outcomes: 'array',
    events: 'number',
  });
}
