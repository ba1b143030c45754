import type { Shard } from '../shard/shard.js';
import {
  isValidationShard,
  mergeValidationShards,
  type ValidationShardDocument,
  validationShardDocument,
} from '../simulation/validationShards.js';
import type { Case } from './callValidationCases.js';
import type { CallValidationContext } from './callValidationMarkdown.js';
import type { CallValidationRun, Outcome } from './runCallValidation.js';

/**
 * The file a shard of the call-graph validation (scripts/validate-calls.ts)
 * writes with `--shard I/N --out DIR` (`validate-calls.shard-I-of-N.json`), which
 * `difftry merge` adds up into the page and the CSV.
 */
export type CallValidationShardDocument = ValidationShardDocument<'validate-calls', Outcome>;

/** The document a shard writes, from every case of the run (`cases`) and its part of them. */
export function callValidationShardDocument(
  shard: Shard,
  cases: readonly Case[],
  run: CallValidationRun,
  context: CallValidationContext,
): CallValidationShardDocument {
  return validationShardDocument('validate-calls', shard, cases, run, context);
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

/**
 * Whether `document` (read from a shard file) has the shape of a
 * {@link CallValidationShardDocument}.
 */
export function isCallValidationShardDocument(
  document: unknown,
): document is CallValidationShardDocument {
  return isValidationShard(document, 'validate-calls', { outcomes: 'array', events: 'number' });
}
