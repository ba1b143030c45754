import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';

/** 2^32, to split a safe integer into two 32-bit halves. */
const TWO_POW_32 = 4294967296;
/** 2^21: the high word's share of a 53-bit result. */
const TWO_POW_21 = 2097152;

/**
 * A seed for one part of a larger seeded run, derived from the run's seed and the part's indices
 * (a tag naming what the seed is for, then e.g. a graph and a configuration number): a 53-bit
 * safe integer that depends on every input and on their order, so `deriveSeed(s, 1, 2)` and
 * `deriveSeed(s, 2, 1)` give unrelated streams. Pure: the same inputs always give the same seed,
 * whatever else the run does, which is what lets work be split across threads without changing
 * its results.
 *
 * @param seed - the run's seed, any safe integer.
 * @param parts - integers in [0, 2^32).
 * @throws {RangeError} naming a bad seed or part.
 * @example
 * ```ts
 * const random = seededRandom(deriveSeed(runSeed, GRAPH_TAG, graph));
 * ```
 */
export function deriveSeed(seed: number, ...parts: readonly number[]): number {
  if (!Number.isSafeInteger(seed)) {
    throw new InvalidArgumentError(`seed should be a safe integer, got ${seed}`);
  }
  const low = (seed % TWO_POW_32) | 0;
  const high = Math.floor(seed / TWO_POW_32) | 0;
  let a = mix32(low ^ 0x243f6a88);
  let b = mix32(high ^ 0x085a308d ^ a);
  for (const part of parts) {
    if (!(Number.isInteger(part) && part >= 0 && part < TWO_POW_32)) {
      throw new InvalidArgumentError(`a seed part should be an integer in [0, 2^32), got ${part}`);
    }
    a = mix32(a ^ mix32((part ^ 0x9e3779b9) | 0));
    b = mix32((b + a) ^ 0x13198a2e);
  }
  return (a >>> 0) * TWO_POW_21 + (b >>> 11);
}

/** murmur3's 32-bit finaliser: a bijection on 32-bit integers that spreads nearby inputs. */
function mix32(value: number): number {
  let z = value | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) | 0;
}
