import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { DEFAULT_WARMUP_FRACTION } from '../SingleServiceConfig.js';
import type { SimulateNetworkOptions } from './SimulateNetworkOptions.js';
import { isNetworkStrategy, NETWORK_STRATEGIES, type NetworkStrategy } from './strategy.js';

/** A run's length and strategy, resolved from its options. */
export interface RunSettings {
  /** The measured window, virtual seconds. */
  readonly duration: number;
  /** Virtual seconds before the window. */
  readonly warmup: number;
  readonly strategy: NetworkStrategy;
}

/**
 * Checks the options of `simulateNetwork` against the network and resolves the defaults.
 * @throws RangeError naming the option and the bad value.
 */
export function checkRunOptions(
  network: NetworkModel,
  options: Readonly<SimulateNetworkOptions>,
): RunSettings {
  const { duration } = options;
  if (!(Number.isFinite(duration) && duration > 0)) {
    throw new InvalidArgumentError(
      `duration should be a positive finite number of seconds, got ${duration}`,
    );
  }
  const warmup = options.warmup ?? DEFAULT_WARMUP_FRACTION * duration;
  if (!(Number.isFinite(warmup) && warmup >= 0)) {
    throw new InvalidArgumentError(
      `warmup should be a non-negative finite number of seconds, got ${warmup}`,
    );
  }
  const classCount = network.classes.length;
  if (options.classBackoffs !== undefined && options.classBackoffs.length > classCount) {
    throw new InvalidArgumentError(
      `classBackoffs should have at most one backoff per class (${classCount}), got ${options.classBackoffs.length}`,
    );
  }
  const serviceCount = network.services.length;
  if (options.serviceTimes !== undefined && options.serviceTimes.length !== serviceCount) {
    throw new InvalidArgumentError(
      `serviceTimes should have one law per service (${serviceCount}), got ${options.serviceTimes.length}`,
    );
  }
  const strategy = options.strategy ?? 'difftry';
  if (!isNetworkStrategy(strategy)) {
    throw new InvalidArgumentError(
      `strategy should be one of ${NETWORK_STRATEGIES.join(', ')}, got ${JSON.stringify(strategy)}`,
    );
  }
  return { duration, warmup, strategy };
}
