import { type Shard, shardRange } from '../shard/shard.js';
import {
  isValidationShard,
  type ValidationRunIdentity,
  validationRunIdentity,
} from '../simulation/validationShards.js';
import type { Case } from './networkValidationCases.js';
import type { NetworkValidationRun, Row } from './runNetworkValidation.js';

/** A row as a shard file holds it: its case by place in the shard's `cases`, not by reference. */
export type ShardRow = Omit<Row, 'c'> & { readonly case: number };

/**
 * The file a shard of the network validation writes (`npx tsx scripts/validate-networks.ts
 * --shard I/N --out DIR`: `validate-networks.shard-I-of-N.json`, in exact JSON), which
 * `difftry merge` adds up into the page and the CSV of the whole run.
 */
export interface NetworkValidationShardDocument {
  readonly command: 'validate-networks';
  readonly shard: Shard;
  readonly run: ValidationRunIdentity;
  /** The shard's cases, in the run's order (the report counts them by group). */
  readonly cases: readonly Case[];
  /** Their rows, analysed and simulated, and the events the shard's runs processed. */
  readonly rows: readonly ShardRow[];
  readonly events: number;
  /** The shard's own wall-clock seconds. */
  readonly seconds: number;
}

/**
 * The document a shard writes: `cases` is every case of the run, `run` the shard's part of it
 * (`runNetworkValidation` over `shardRange(cases.length, shard)`).
 */
export function networkValidationShardDocument(
  shard: Shard,
  cases: readonly Case[],
  run: NetworkValidationRun,
  context: { readonly revision: string; readonly seconds: number },
): NetworkValidationShardDocument {
  const { first, end } = shardRange(cases.length, shard);
  const mine = cases.slice(first, end);
  return {
    command: 'validate-networks',
    shard,
    run: validationRunIdentity(context.revision, cases),
    cases: mine,
    rows: run.rows.map(({ c, ...row }) => {
      const place = mine.indexOf(c);
      if (place < 0) throw new Error(`row of ${c.id}: not a case of shard ${shard.index}`);
      return { ...row, case: place };
    }),
    events: run.events,
    seconds: context.seconds,
  };
}

/**
 * The whole run from its shards' documents, in shard order (every shard of one run once,
 * checked by the caller): the cases and rows one after the other (each row given its case
 * again, one object per case as in the whole run), the events and seconds added up.
 */
export function mergeNetworkValidationShards(shards: readonly NetworkValidationShardDocument[]): {
  readonly cases: readonly Case[];
  readonly run: NetworkValidationRun;
  readonly seconds: number;
} {
  const cases: Case[] = [];
  const rows: Row[] = [];
  let events = 0;
  let seconds = 0;
  for (const d of shards) {
    for (const { case: place, ...row } of d.rows) {
      const c = d.cases[place];
      if (c === undefined) throw new Error(`shard ${d.shard.index}: a row of no case (${place})`);
      rows.push({ c, ...row });
    }
    cases.push(...d.cases);
    events += d.events;
    seconds += d.seconds;
  }
  return { cases, run: { rows, events }, seconds };
}

/**
 * Whether `document` (read from a shard file) has the shape of a
 * {@link NetworkValidationShardDocument}.
 */
export function isNetworkValidationShardDocument(
  document: unknown,
): document is NetworkValidationShardDocument {
  return isValidationShard(document, 'validate-networks', {
    cases: 'array',
    rows: 'array',
    events: 'number',
    seconds: 'number',
  });
}
