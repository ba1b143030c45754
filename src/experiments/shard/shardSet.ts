import type { Shard } from './shard.js';

/** One shard's result as `difftry merge` found it: where, which part, and what run it belongs to. */
export interface ShardEntry {
  readonly file: string;
  readonly shard: Shard;
  /**
   * What every shard of one run shares (seed, network, version, options…), compared field by
   * field as JSON.
   */
  readonly run: Readonly<Record<string, unknown>>;
}

/**
 * Whether `entries` are every shard of one run, each once: the first problem found, in one
 * sentence, or the entries in shard order.
 * - a field of `run` that differs, named (`seed 2 in b.json, 1 in a.json`), or a different
 *   shard count;
 * - a shard given twice;
 * - shards missing.
 * @example
 * ```ts
 * wholeRun([{ file: 'a.json', shard: { index: 0, count: 2 }, run: { seed: 1 } }]);
 * // { problem: 'shard 1 of 2 missing: the run is not whole' }
 * ```
 */
export function wholeRun<E extends ShardEntry>(
  entries: readonly E[],
): { readonly ordered: readonly E[] } | { readonly problem: string } {
  const [first, ...rest] = entries;
  if (first === undefined) return { problem: 'no shard results' };
  for (const entry of rest) {
    const keys = new Set([...Object.keys(first.run), ...Object.keys(entry.run)]);
    for (const key of keys) {
      const mine = JSON.stringify(entry.run[key]);
      const theirs = JSON.stringify(first.run[key]);
      if (mine !== theirs) {
        return {
          problem: `cannot merge shards of different runs: ${key} ${mine ?? 'absent'} in ${entry.file}, ${theirs ?? 'absent'} in ${first.file}`,
        };
      }
    }
    if (entry.shard.count !== first.shard.count) {
      return {
        problem: `cannot merge shards of different runs: ${entry.shard.count} shards in ${entry.file}, ${first.shard.count} in ${first.file}`,
      };
    }
  }
  const { count } = first.shard;
  const byIndex = new Map<number, E>();
  for (const entry of entries) {
    const twice = byIndex.get(entry.shard.index);
    if (twice !== undefined) {
      return {
        problem: `shard ${entry.shard.index} of ${count} is given twice: ${twice.file} and ${entry.file}`,
      };
    }
    byIndex.set(entry.shard.index, entry);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    return {
      problem: `shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} of ${count} missing: the run is not whole`,
    };
  }
  return {
    ordered: Array.from({ length: count }, (_, i) => byIndex.get(i) as E),
  };
}
