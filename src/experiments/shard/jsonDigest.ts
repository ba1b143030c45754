import { createHash } from 'node:crypto';

/**
 * The first 16 hex digits of the sha-256 of `value` as JSON (a validation's cases, a sweep's
 * network as read): two shards with the same digest worked on the same input, so
 * `difftry merge` can tell shards of one run from shards of another.
 * @example
 * ```ts
 * jsonDigest([{ id: 'a' }]) === jsonDigest([{ id: 'a' }]); // true
 * ```
 */
export function jsonDigest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}
