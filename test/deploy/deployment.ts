import { checkSidecarConfig } from '../../src/config/parseSidecarConfig.js';
import { type ResolvedHops, resolveHops } from '../../src/config/resolveHops.js';
import type { NetworkSpec } from '../../src/config/schema.js';
import type { SidecarConfig } from '../../src/config/sidecarSchema.js';
import { toNetworkModel } from '../../src/config/toNetworkModel.js';
import { type EnvoySidecar, envoySidecars } from '../../src/deploy/envoy.js';
import { gatewayApiManifest } from '../../src/deploy/gatewayApi.js';
import { istioManifest } from '../../src/deploy/istio.js';
import { kubernetesNames } from '../../src/deploy/kubernetesNames.js';
import type { MeshManifest } from '../../src/deploy/kubernetesObject.js';
import { linkerdManifest } from '../../src/deploy/linkerd.js';
import { type MeshPlan, meshPlan } from '../../src/deploy/meshPlan.js';
import { sidecarsFromNetwork } from '../../src/deploy/sidecarsFromNetwork.js';
import type { NetworkModel } from '../../src/model/network/NetworkModel.js';
import { type XdsResources, xdsResources } from '../../src/xds/xdsResources.js';

/** Everything one network file deploys as, and what the analysis makes of it. */
export interface Deployment {
  readonly network: NetworkSpec;
  readonly resolved: ResolvedHops;
  readonly model: NetworkModel;
  /** Per service, its sidecar config as the sidecar parses it (defaults applied). */
  readonly sidecars: ReadonlyMap<string, SidecarConfig>;
  readonly plan: MeshPlan;
  /** Per service, its sidecar Envoy. */
  readonly envoy: ReadonlyMap<string, EnvoySidecar>;
  readonly istio: MeshManifest;
  readonly linkerd: MeshManifest;
  readonly gatewayApi: MeshManifest;
  /** What the xDS control plane serves (no endpoints). */
  readonly xds: XdsResources;
  /** Per service, its Kubernetes name. */
  readonly names: ReadonlyMap<string, string>;
}

/** Runs every consumer of a network file once: the analysis, the sidecars and every mesh. */
export function deploy(network: NetworkSpec): Deployment {
  const plan = meshPlan(network);
  return {
    network,
    resolved: resolveHops(network),
    model: toNetworkModel(network),
    sidecars: new Map(
      sidecarsFromNetwork(network).map((config) => [
        config.service,
        checkSidecarConfig(config, `the sidecar config of ${config.service}`),
      ]),
    ),
    plan,
    envoy: new Map(envoySidecars(plan).map((sidecar) => [sidecar.service, sidecar])),
    istio: istioManifest(plan, { namespace: 'shop' }),
    linkerd: linkerdManifest(plan, { namespace: 'shop' }),
    gatewayApi: gatewayApiManifest(plan, { namespace: 'shop' }),
    xds: xdsResources(plan, {}),
    names: kubernetesNames(plan),
  };
}
