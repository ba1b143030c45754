import type { NetworkModel } from '../model/network/NetworkModel.js';
import { DEFAULT_WARMUP_FRACTION } from '../sim/SingleServiceConfig.js';
import type { SimulateOptions } from './SimulateOptions.js';
import type { Sweep } from './sweep.js';
import { fixed } from './table.js';
import { UsageError } from './UsageError.js';

/**
 * Most external requests one `difftry simulate` run may simulate (every replication and sweep
 * point, warm-up included): about 10^9, an hour or more of simulation, far past where the 95 % half-widths stop
 * shrinking usefully.
 */
export const MOST_SIMULATED_REQUESTS = 1e9;

/**
 * Most windows one `--window` run may measure: (duration + warm-up) / window, at most 10^5, a
 * table of a hundred thousand rows per class, past which no one reads it and memory grows.
 */
export const MOST_WINDOWS = 1e5;

/**
 * Refuses a run too long to finish (`--duration 1e12` would run for years while its ETA said
 * 0 s): the external requests it would simulate, Σ γ × (duration + warm-up) × replications,
 * summed over a sweep's points (the swept rate at each), must stay within
 * {@link MOST_SIMULATED_REQUESTS}; a `--window` run measures at most {@link MOST_WINDOWS} windows.
 * @throws UsageError naming the figure and the options that set it.
 */
export function checkRunSize(model: NetworkModel, options: SimulateOptions, sweep?: Sweep): void {
  let rate = 0;
  for (const service of model.services) for (const g of service.arrivals) rate += g;
  const warmup = options.warmup ?? DEFAULT_WARMUP_FRACTION * options.duration;
  const span = options.duration + warmup;
  if (options.window !== undefined && span / options.window > MOST_WINDOWS) {
    throw new UsageError(
      `--window ${options.window} over --duration ${options.duration} (warm-up ${fixed(warmup, 1)} s) ` +
        `would measure ${(span / options.window).toExponential(1)} windows, over the ${MOST_WINDOWS.toExponential(0)} ` +
        'one run may take: widen --window or shorten --duration',
    );
  }
  let pointRates = [rate];
  if (sweep !== undefined && sweep.field !== 'capacity') {
    const swept = model.services[sweep.serviceIndex]?.arrivals[sweep.field] ?? 0;
    pointRates = sweep.values.map((value) => rate - swept + value);
  } else if (sweep !== undefined) {
    pointRates = sweep.values.map(() => rate);
  }
  let total = 0;
  for (const pointRate of pointRates) total += pointRate;
  const requests = total * span * options.replications;
  if (requests <= MOST_SIMULATED_REQUESTS) return;
  const points = sweep === undefined ? '' : ` over ${sweep.values.length} sweep points`;
  throw new UsageError(
    `--duration ${options.duration} × --replications ${options.replications} at ${fixed(rate, 2)} requests/s${points} ` +
      `would simulate ${requests.toExponential(1)} requests, over the ${MOST_SIMULATED_REQUESTS.toExponential(0)} ` +
      `one run may take: shorten --duration or lower --replications${sweep === undefined ? '' : ' or thin the sweep'}`,
  );
}
