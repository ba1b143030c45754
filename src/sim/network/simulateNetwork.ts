import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { NetworkRun } from './NetworkRun.js';
import type { NetworkSimulationResult } from './NetworkSimulationResult.js';
import type { SimulateNetworkOptions } from './SimulateNetworkOptions.js';

export type { NetworkPolicyOptions, SimulateNetworkOptions } from './SimulateNetworkOptions.js';

/**
 * Simulates a network (docs/design.md, "A network"; docs/model.md, "A network, call-graph form") in
 * virtual time.
 *
 * Every service is a FCFS station with capacity μ (service time mean 1/μ) and room for m
 * requests; an attempt finding m present is rejected at once. External requests of class p reach
 * service i as a Poisson stream of rate γ_i^p. A request that succeeds at i moves to j with
 * probability F_ij^p (routes for all classes plus those of class p) or leaves. At every hop a
 * rejected attempt is retried as the runtime's client would: the hop's `RetryPolicy` (one per
 * service, built by `retryPolicy` with that service's limits k_i^p) is asked with a 503
 * outcome, and the retry is scheduled after the delay it returns. A request that exhausts its
 * retries at a hop is rejected end to end.
 *
 * Requests whose external arrival falls in [warmup, warmup + duration) are measured, and the run
 * goes on after the window until all of them have resolved. Same options ⇒ identical result.
 *
 * Call-graph mode (`mode: 'calls'`): a call to service i is a request at i whose attempts are
 * retried by its caller's hop through i's policy (limits k_i^p); the caller of an external
 * request is the external client. An accepted attempt first occupies i's server for its own
 * service time (FCFS); when that work completes, i makes its calls in order: n sequential calls
 * to a child one after another, stopping at the first that fails; a run of adjacent parallel
 * calls issued together (all made, the group fails if any fails); then, if i has branches, one
 * branch chosen with its probability (none with 1 − Σp) and its calls likewise. A call to a
 * child is a new request there, of the same class. The attempt at i succeeds iff all its calls
 * succeed; it fails if it is rejected at admission or if one of its calls failed, and then the
 * caller's hop may retry it, re-running the whole subtree (nested retries). **The server of i is
 * not held while i waits for its children**: capacity counts own work only, the model's
 * assumption (a real service that holds a worker while waiting loses capacity the simulation
 * does not). Per service, `in` counts calls arriving, `out` calls that succeeded and `rejection`
 * the fraction of calls that failed after the hop's retries (rejected or failed below).
 * @throws RangeError for bad options, routes or calls, calls in a routing-mode network, routes
 * in a call-graph network, or calls that form a cycle.
 * @example
 * ```ts
 * const network = toNetworkModel(parseNetwork(text, 'hotel.yaml'));
 * const result = simulateNetwork(network, { duration: 400, seed: 1 });
 * result.endToEnd.low?.rejection; // compare with analyzeNetwork(network).endToEnd.low.rejection
 * ```
 */
export function simulateNetwork(
  network: NetworkModel,
  options: Readonly<SimulateNetworkOptions>,
): NetworkSimulationResult {
  const run = new NetworkRun(network, options);
  run.run();
  return run.output();
}
