import type { NetworkModel } from '../../src/model/network/NetworkModel.js';
import { type EnvoySidecar, envoySidecars } from '../../src/spec/meshes/envoy.js';
import { gatewayApiManifest } from '../../src/spec/meshes/gatewayApi.js';
import { istioManifest } from '../../src/spec/meshes/istio.js';
import { kubernetesNames } from '../../src/spec/meshes/kubernetesNames.js';
import type { MeshManifest } from '../../src/spec/meshes/kubernetesObject.js';
import { linkerdManifest } from '../../src/spec/meshes/linkerd.js';
import { type MeshPlan, meshPlan } from '../../src/spec/meshes/meshPlan.js';
import { checkSidecarConfig } from '../../src/spec/parseSidecarConfig.js';
import { type ResolvedHops, resolveHops } from '../../src/spec/resolveHops.js';
import type { NetworkSpec } from '../../src/spec/schema.js';
import type { SidecarConfig } from '../../src/spec/sidecarSchema.js';
import { sidecarsFromNetwork } from '../../src/spec/sidecarsFromNetwork.js';
import { toNetworkModel } from '../../src/spec/toNetworkModel.js';
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
