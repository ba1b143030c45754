import type { Shard } from '../shard/shard.js';
import {
  isValidationShard,
  mergeValidationShards,
  type ValidationShardDocument,
  validationShardDocument,
} from '../simulation/validationShards.js';
import type { Outcome, TimeoutValidationRun } from './runTimeoutValidation.js';
import type { Case } from './timeoutValidationCases.js';
import type { TimeoutValidationContext } from './timeoutValidationMarkdown.js';

/**
 * The file a shard of the per-try timeout validation (scripts/validate-timeouts-model.ts)
 * writes with `--shard I/N --out DIR` (`validate-timeouts-model.shard-I-of-N.json`), which
 * `difftry merge` adds up into the page and the CSV.
 */
export type TimeoutValidationShardDocument = ValidationShardDocument<
  'validate-timeouts-model',
  Outcome
>;

/** The document a shard writes, from every case of the run (`cases`) and its part of them. */
export function timeoutValidationShardDocument(
  shard: Shard,
  cases: readonly Case[],
  run: TimeoutValidationRun,
  context: TimeoutValidationContext,
): TimeoutValidationShardDocument {
  return validationShardDocument('validate-timeouts-model', shard, cases, run, context);
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
