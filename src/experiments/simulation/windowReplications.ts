/**
 * Replications of a windowed network simulation, kept one by one. `replicateNetwork` averages the
 * windows over replications; a metastable run also needs each replication's own windows, since
 * "did this run recover, and when" is a question about one run, not about the mean of several.
 */
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { type ReplicatedWindow, replicateWindows } from '../../sim/network/replicateWindows.js';
import type { SimulatedWindow } from '../../sim/network/SimulatedWindow.js';
import { type SimulateNetworkOptions, simulateNetwork } from '../../sim/network/simulateNetwork.js';

/** What {@link simulateWindowReplications} returns. */
export interface WindowReplications {
  /** Per replication r (substream `stream + r` of the seed, as `replicateNetwork` uses), its windows. */
  readonly runs: readonly (readonly SimulatedWindow[])[];
  /** The windows averaged over the replications, each figure with its 95 % half-width. */
  readonly windows: readonly ReplicatedWindow[];
  /** Events processed by all replications together. */
  readonly events: number;
}

/**
 * Runs `replications` independent replications of `simulateNetwork` with windows (the same
 * substreams as `replicateNetwork`, so the averaged windows are the ones it would report).
 * @throws RangeError unless `replications` is an integer ≥ 1 and `options.windowSeconds` is set.
 */
export function simulateWindowReplications(
  network: NetworkModel,
  options: Readonly<SimulateNetworkOptions>,
  replications: number,
): WindowReplications {
  if (!(Number.isInteger(replications) && replications >= 1)) {
    throw new InvalidArgumentError(`replications should be an integer ≥ 1, got ${replications}`);
  }
  if (options.windowSeconds === undefined) {
    throw new InvalidArgumentError(
      'windowSeconds should be given: the replications are kept as windows',
    );
  }
  const stream = options.stream ?? 0;
  const runs: SimulatedWindow[][] = [];
  let events = 0;
  for (let r = 0; r < replications; r++) {
    const result = simulateNetwork(network, { ...options, stream: stream + r });
    runs.push([...(result.windows ?? [])]);
    events += result.events;
  }
  return { runs, windows: replicateWindows(runs), events };
}
