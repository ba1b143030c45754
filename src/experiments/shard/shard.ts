import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';

/**
 * One of `count` disjoint parts of a run's work, `index` from 0 (as a Kubernetes Indexed Job's
 * `JOB_COMPLETION_INDEX`): `--shard I/N`. Every item of the work is seeded by its own number,
 * never by the shard's, so the shards' results merged are one whole run's.
 */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** Most shards a run may be cut into. */
export const MOST_SHARDS = 100_000;

/**
 * `I/N` as a {@link Shard}: integers with 0 ≤ I < N ≤ 100,000.
 * @throws {InvalidArgumentError} naming what is wrong.
 */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = match ? Number(match[1]) : Number.NaN;
  const count = match ? Number(match[2]) : Number.NaN;
  if (!(count >= 1 && count <= MOST_SHARDS) || !(index >= 0 && index < count)) {
    throw new InvalidArgumentError(
      `expected I/N with 0 ≤ I < N ≤ ${MOST_SHARDS.toLocaleString('en-US')} (as JOB_COMPLETION_INDEX counts), got "${text}"`,
    );
  }
  return { index, count };
}

/**
 * The items [first, end) of `items` (numbered 0 …) that `shard` runs: contiguous blocks whose
 * sizes differ by at most one, in order, covering every item once over the shards. Without a
 * shard, all of them.
 * @example
 * ```ts
 * shardRange(10, { index: 1, count: 3 }); // { first: 3, end: 6 }
 * ```
 */
export function shardRange(items: number, shard?: Shard): { first: number; end: number } {
  if (shard === undefined) return { first: 0, end: items };
  return {
    first: Math.floor((items * shard.index) / shard.count),
    end: Math.floor((items * (shard.index + 1)) / shard.count),
  };
}

/** The file name part that says which shard wrote a file: `shard-2-of-8`. */
export function shardTag(shard: Shard): string {
  return `shard-${shard.index}-of-${shard.count}`;
}

/**
 * The file a shard of `command` writes its result to: `simulate.shard-2-of-8.json`, which
 * `difftry merge` finds by that name.
 */
export function shardFileName(command: string, shard: Shard): string {
  return `${command}.${shardTag(shard)}.json`;
}

/** The `shard` a shard's document (read from its file) says it is, or undefined. */
export function shardOfDocument(document: unknown): Shard | undefined {
  const shard = (document as { shard?: { index?: unknown; count?: unknown } } | null)?.shard;
  return typeof shard?.index === 'number' && typeof shard.count === 'number'
    ? { index: shard.index, count: shard.count }
    : undefined;
}

/** Reads a {@link shardTag} back from a file name, or undefined. */
export function shardOfTag(name: string): Shard | undefined {
  const match = /shard-(\d+)-of-(\d+)/.exec(name);
  if (match === null) return undefined;
  const shard = { index: Number(match[1]), count: Number(match[2]) };
  return shard.index < shard.count ? shard : undefined;
}

/**
 * The items a shard ran, in words, numbered from 1: `points 2–3 of 5`, `case 51 of 57`,
 * `no points of 2`.
 */
export function rangeText(
  range: { readonly first: number; readonly end: number },
  total: number,
  noun: string,
): string {
  const size = range.end - range.first;
  if (size === 0) return `no ${noun}s of ${total}`;
  if (size === 1) return `${noun} ${range.end} of ${total}`;
  return `${noun}s ${range.first + 1}–${range.end} of ${total}`;
}
