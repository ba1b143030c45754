import { InvalidArgumentTypeError } from '../../core/InvalidArgumentTypeError.js';
import { fluidPhi } from './fluid.js';
import { mixedPhi } from './mixed.js';
import { mm1mPhi } from './mm1m.js';
import type { ModelName, Phi } from './Phi.js';

export { fluidPhi } from './fluid.js';
export { mixedPhi } from './mixed.js';
export { checkQueue, mm1mBlocking, mm1mMeanInSystem, mm1mPhi } from './mm1m.js';
export { MODEL_NAMES, type ModelName, type Phi } from './Phi.js';

/**
 * The φ law of the given name for a service with system capacity m (`fluid` ignores m).
 * @example
 * ```ts
 * phiFor('mm1m', 5)(2 / 3); // 0.0481203007518797…
 * ```
 */
export function phiFor(name: ModelName, m: number): Phi {
  switch (name) {
    case 'fluid':
      return fluidPhi;
    case 'mm1m':
      return mm1mPhi(m);
    case 'mixed':
      return mixedPhi(m);
    default:
      throw new InvalidArgumentTypeError(
        `model should be one of fluid, mm1m, mixed, got ${JSON.stringify(name as unknown)}`,
      );
  }
}
