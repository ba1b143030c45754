/**
 * The DiffTry xDS control plane (`difftry/xds`): serves a network's per-class routes and retry
 * policies (the Envoy generator's) over ADS to Envoy and to proxyless gRPC clients. Needs the
 * optional peers `@grpc/grpc-js`, `@grpc/grpc-js-xds` (for Envoy's protos), `@bufbuild/protobuf`
 * and `protobufjs`.
 * @packageDocumentation
 */
export type {
  AdsDecision,
  AdsRequest,
  AdsRequestKind,
  AdsResponse,
  AdsSnapshot,
} from './AdsSession.js';
export { AdsSession } from './AdsSession.js';
export { type XdsBootstrapOptions, xdsBootstrap } from './xdsBootstrap.js';
export {
  routeName,
  XDS_TYPES,
  type XdsEndpoint,
  type XdsResources,
  type XdsTypeUrl,
  xdsResources,
} from './xdsResources.js';
export {
  createXdsServer,
  type XdsRequestEvent,
  type XdsServer,
  type XdsServerOptions,
} from './xdsServer.js';
