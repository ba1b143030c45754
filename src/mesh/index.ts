/**
 * The DiffTry sidecar (`difftry proxy`): a proxy beside each service that applies the runtime
 * library's policies per hop with no change to the application — DiffTry retries and per-try
 * timeouts on the way out, admission (c running, m in the system) and edge classification on the
 * way in. Pure decisions (`edgeClassifier`, `peerCheck`, `upstreamRouter`, `AdmissionGate`) are
 * exported beside the executor (`startSidecar`). See docs/mesh.md.
 * @example
 * ```ts
 * import { startSidecar } from 'difftry/mesh';
 * const sidecar = await startSidecar(parseSidecarConfig(text, 'sidecar.yaml'));
 * console.log(sidecar.inboundUrl, sidecar.outboundUrl);
 * await sidecar.close();
 * ```
 * @module
 */
export {
  checkSidecarConfig,
  loadSidecarConfigFile,
  parseSidecarConfig,
} from '../spec/parseSidecarConfig.js';
export {
  DEFAULT_SIDECAR_LIMITS,
  type EdgeConfig,
  type EdgeRuleConfig,
  type IdentityConfig,
  type InboundConfig,
  type ListenAddress,
  type OutboundConfig,
  parseListen,
  type SidecarConfig,
  type SidecarConfigInput,
  type SidecarLimits,
  sidecarConfigSchema,
  type TrustConfig,
  type UpstreamConfig,
  upstreamPrefix,
} from '../spec/sidecarSchema.js';
export {
  type SidecarsFromNetworkOptions,
  sidecarsFromNetwork,
} from '../spec/sidecarsFromNetwork.js';
export { type Admission, AdmissionGate } from './AdmissionGate.js';
export { type EdgeRequest, type EdgeRule, edgeClassifier, pathHasPrefix } from './edgeRules.js';
export { BodyTooLargeError } from './requestBody.js';
export { type SidecarHandle, type SidecarOptions, startSidecar } from './Sidecar.js';
export {
  createSidecarMetrics,
  GIVE_UP_REASONS,
  type GiveUpLabel,
  type InboundMeters,
  type LimitLabel,
  type ListenerLabel,
  type OutboundMeters,
  type SidecarGaugeSources,
  type SidecarMetrics,
  type SidecarMetricsOptions,
} from './sidecarMetrics.js';
export { peerCheck, peerHeaderValue } from './trust.js';
export { type RoutableUpstream, type Route, upstreamRouter } from './upstreamRouting.js';
