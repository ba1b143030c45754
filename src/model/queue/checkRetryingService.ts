/** What {@link checkRetryingService} checks of one service with retrying classes. */
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
export interface RetryingService {
  readonly capacity: number;
  readonly queue: number;
  readonly classes: readonly { readonly arrivalRate: number; readonly retryLimit: number }[];
}

/**
 * Checks what the exact chain and the orbit law of one M/M/1/m service both need: a positive
 * capacity, a queue of at least 1, and classes with arrival rates ≥ 0 and integer retry limits.
 * @throws RangeError naming the first bad value.
 */
export function checkRetryingService(service: Readonly<RetryingService>): void {
  const { capacity, queue, classes } = service;
  if (!(Number.isFinite(capacity) && capacity > 0)) {
    throw new InvalidArgumentError(
      `capacity should be a positive number per second, got ${capacity}`,
    );
  }
  if (!(Number.isInteger(queue) && queue >= 1)) {
    throw new InvalidArgumentError(`queue should be an integer ≥ 1, got ${queue}`);
  }
  if (classes.length === 0) throw new InvalidArgumentError('classes should not be empty');
  classes.forEach((entry, p) => {
    if (!(Number.isFinite(entry.arrivalRate) && entry.arrivalRate >= 0)) {
      throw new InvalidArgumentError(
        `classes[${p}].arrivalRate should be ≥ 0, got ${entry.arrivalRate}`,
      );
    }
    if (!(Number.isInteger(entry.retryLimit) && entry.retryLimit >= 0)) {
      throw new InvalidArgumentError(
        `classes[${p}].retryLimit should be an integer ≥ 0, got ${entry.retryLimit}`,
      );
    }
  });
}
