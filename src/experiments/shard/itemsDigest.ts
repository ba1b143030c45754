import { createHash } from 'node:crypto';

/**
 * The first 16 hex digits of the sha-256 of a run's items as JSON (a validation's cases: ids,
 * networks, settings): two shards with the same digest ran the same items, so
 * `difftry merge` can tell shards of one run from shards of another.
 * @example
 * ```ts
 * itemsDigest([{ id: 'a' }]) === itemsDigest([{ id: 'a' }]); // true
 * ```
 */
export function itemsDigest(items: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(items)).digest('hex').slice(0, 16);
}
