import type { NetworkSpec } from '../config/schema.js';
import { jsonDigest } from '../experiments/shard/jsonDigest.js';
import { type Shard, shardOfDocument } from '../experiments/shard/shard.js';
import type { SweepRun } from './simulateSweep.js';

/**
 * The file a shard of `difftry simulate --sweep … --shard I/N` writes to `--out`
 * (`simulate.shard-I-of-N.json`, in exact JSON), which `difftry merge` adds up into the run.
 */
export interface SweepShardDocument {
  readonly command: 'simulate';
  /** The part of the sweep's points it ran. */
  readonly shard: Shard;
  /** What every shard of one run shares; `difftry merge` refuses shards that differ in any. */
  readonly run: {
    /** The difftry version that ran it. */
    readonly version: string;
    /** sha-256 of the network file as read (its JSON), first 16 hex digits. */
    readonly network: string;
    readonly retries: Readonly<Record<string, number>> | null;
    readonly parameter: string;
    /** The whole sweep's values (the shard ran a contiguous block of them). */
    readonly values: readonly number[];
    readonly strategy: string;
    readonly replications: number;
    readonly duration: number;
    readonly warmup: number | null;
    readonly seed: number;
    readonly timeouts: SweepRun['timeouts'];
  };
  /** The shard's own points and the analysis's notes at its first point. */
  readonly result: SweepRun;
}

/** The document a shard writes, from the part of the sweep it ran. */
export function sweepShardDocument(
  shard: Shard,
  identity: {
    readonly version: string;
    readonly network: NetworkSpec;
    readonly retries: Readonly<Record<string, number>> | undefined;
    readonly values: readonly number[];
  },
  result: SweepRun,
): SweepShardDocument {
  return {
    command: 'simulate',
    shard,
    run: {
      version: identity.version,
      network: jsonDigest(identity.network),
      retries: identity.retries ?? null,
      parameter: result.parameter,
      values: identity.values,
      strategy: result.strategy,
      replications: result.replications,
      duration: result.duration,
      warmup: result.warmup ?? null,
      seed: result.seed,
      timeouts: result.timeouts,
    },
    result,
  };
}

/**
 * The whole sweep from its shards' documents, in shard order (every shard of one run once,
 * checked by the caller): the points one after the other, the notes of the first point.
 */
export function mergeSweepShards(shards: readonly SweepShardDocument[]): SweepRun {
  const [first] = shards;
  if (first === undefined) throw new Error('no shard to merge');
  const withPoints = shards.find((d) => d.result.points.length > 0) ?? first;
  return {
    ...first.result,
    values: first.run.values,
    notes: withPoints.result.notes,
    points: shards.flatMap((d) => d.result.points),
  };
}

/** Whether `document` (read from a shard file) has the shape of a {@link SweepShardDocument}. */
export function isSweepShardDocument(document: unknown): document is SweepShardDocument {
  const d = document as Partial<SweepShardDocument> | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    d.command === 'simulate' &&
    shardOfDocument(d) !== undefined &&
    typeof d.run === 'object' &&
    d.run !== null &&
    typeof d.result === 'object' &&
    d.result !== null &&
    Array.isArray(d.result.points) &&
    Array.isArray(d.result.values)
  );
}
