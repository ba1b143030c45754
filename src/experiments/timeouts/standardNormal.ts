import type { RandomSource } from '../../model/random.js';

/** One standard normal draw (Box–Muller; one normal per pair of uniforms keeps it stateless). */
export function standardNormal(random: RandomSource): number {
  const u1 = 1 - random(); // in (0, 1], so the logarithm is finite
  const u2 = random();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}
