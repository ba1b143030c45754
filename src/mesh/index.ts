/**
 * The DiffTry sidecar (`difftry proxy`): a proxy beside each service that applies the runtime
 * library's policies per hop with no change to the application — DiffTry retries and per-try
 * timeouts on the way out, admission (c running, m in the system) and edge classification on the
 * way in. Pure decisions (`edgeClassifier`, `peerCheck`, `upstreamRouter`, `AdmissionGate`) are
 * exported beside the executor (`startSidecar`); configs are read by difftry/spec. See
 * docs/mesh.md.
 * @example
 * ```ts
 * import { startSidecar } from 'difftry/mesh';
 * import { loadSidecarConfigFile } from 'difftry/spec';
 * const sidecar = await startSidecar(await loadSidecarConfigFile('sidecar.yaml'));
 * console.log(sidecar.inboundUrl, sidecar.outboundUrl);
 * await sidecar.close();
 * ```
 * @module
 */
// The config's types are the sidecar's; reading, checking and generating configs is
// difftry/spec's (`loadSidecarConfigFile`, `parseSidecarConfig`, `sidecarsFromNetwork`).
export type {
  EdgeConfig,
  EdgeRuleConfig,
  IdentityConfig,
  InboundConfig,
  ListenAddress,
  OutboundConfig,
  SidecarConfig,
  SidecarConfigInput,
  SidecarLimits,
  TrustConfig,
  UpstreamConfig,
} from '../config/sidecarSchema.js';
export { type Admission, AdmissionGate } from './AdmissionGate.js';
export { type EdgeRequest, type EdgeRule, edgeClassifier } from './edgeRules.js';
export { BodyTooLargeError } from './requestBody.js';
export { type SidecarHandle, type SidecarOptions, startSidecar } from './Sidecar.js';
export type {
  GiveUpLabel,
  InboundMeters,
  LimitLabel,
  ListenerLabel,
  OutboundMeters,
  SidecarGaugeSources,
  SidecarMetrics,
  SidecarMetricsOptions,
} from './sidecarMetrics.js';
export { peerCheck, peerHeaderValue } from './trust.js';
export { type RoutableUpstream, type Route, upstreamRouter } from './upstreamRouting.js';
