import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { type ReplicatedNetworkResult, replicateNetwork } from './replicateNetwork.js';
import type { SimulateNetworkOptions } from './SimulateNetworkOptions.js';

/**
 * Runs `replications` of the network simulator ({@link replicateNetwork}), reporting progress
 * within each replication as well as between them: `report` gets (replications done + fraction
 * of this one) / replications, from 0 to 1.
 * @example
 * ```ts
 * replicateWithProgress(model, { duration: 60, seed: 1 }, 5, (f) => bar.update(f));
 * ```
 */
export function replicateWithProgress(
  model: NetworkModel,
  simulation: SimulateNetworkOptions,
  replications: number,
  report: (fraction: number) => void,
): ReplicatedNetworkResult {
  let done = 0;
  return replicateNetwork(
    model,
    { ...simulation, onProgress: (fraction) => report((done + fraction) / replications) },
    replications,
    {
      onProgress: (fraction) => {
        done = Math.round(fraction * replications);
        report(fraction);
      },
    },
  );
}
