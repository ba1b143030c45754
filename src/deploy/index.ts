/**
 * What a network file deploys as (`difftry/deploy`): every service's sidecar config
 * (`sidecarsFromNetwork`, what `difftry mesh sidecars` writes), and the one mapping behind every
 * mesh generator and the xDS server (`meshPlan`: per service, upstream and class, the hop as
 * `resolveHops` resolves it for the analysis).
 *
 * @example
 * ```ts
 * import { loadNetworkFile } from 'difftry/config';
 * import { sidecarsFromNetwork } from 'difftry/deploy';
 * const configs = sidecarsFromNetwork(await loadNetworkFile('examples/hotel-calls.yaml'));
 * ```
 * @module
 */

export {
  type ClassHop,
  type EdgeRulePlan,
  type GrpcRetryCode,
  type MeshPlan,
  meshPlan,
  type ServicePlan,
  type UpstreamPlan,
} from './meshPlan.js';
export {
  type PodAddressing,
  type SidecarsFromNetworkOptions,
  sidecarsFromNetwork,
} from './sidecarsFromNetwork.js';
