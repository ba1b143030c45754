import { analyzeNetwork } from './analyzeNetwork.js';
import type { NetworkModel } from './NetworkModel.js';

/**
 * The nominal load of each service, in the order of `network.services`: the flow that would reach
 * it with no rejection anywhere (so no retries), over its capacity μ. It is the ρ₀ by which a
 * network's overload is stated ("bottleneck at ρ₀ = 2"). Found by analysing a copy with every
 * capacity a billion times larger and the fluid law, so that nothing is rejected.
 * @example
 * ```ts
 * const rho0 = Math.max(...nominalLoads(network));
 * ```
 */
export function nominalLoads(network: NetworkModel): number[] {
  const free = analyzeNetwork({
    ...network,
    services: network.services.map((s) => ({
      ...s,
      capacity: s.capacity * 1e9,
      model: 'fluid' as const,
    })),
  });
  return network.services.map((s) => {
    const classes = Object.values(free.services[s.name]?.classes ?? {});
    return classes.reduce((sum, c) => sum + c.in, 0) / s.capacity;
  });
}

/**
 * The most loaded service at nominal load: its ρ₀ and name (NaN and '?' for no service);
 * `loads` are the network's {@link nominalLoads}, if already known.
 */
export function nominalBottleneck(
  network: NetworkModel,
  loads: readonly number[] = nominalLoads(network),
): { readonly rho0: number; readonly name: string } {
  const at = loads.indexOf(Math.max(...loads));
  return { rho0: loads[at] ?? Number.NaN, name: network.services[at]?.name ?? '?' };
}
