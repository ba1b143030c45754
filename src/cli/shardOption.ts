import { parseShard, type Shard } from '../experiments/shard/shard.js';
import { UsageError } from './UsageError.js';

/**
 * `--shard I/N` as a {@link Shard}.
 * @throws {UsageError} naming the option and what is wrong.
 */
export function shardOption(text: string): Shard {
  try {
    return parseShard(text);
  } catch (error) {
    throw new UsageError(`--shard: ${(error as Error).message}`);
  }
}
