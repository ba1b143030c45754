import { HCM_TYPE } from './envoy.js';
import { type KubernetesObject, objectMeta } from './kubernetesObject.js';
import { strictEdgeConnectionManager } from './strictEdge.js';

/** The API of Istio's EnvoyFilter, which `networking.istio.io/v1` does not carry. */
export const ENVOY_FILTER_API_VERSION = 'networking.istio.io/v1alpha3';

/** The name of the EnvoyFilter of an edge service: `web` → `web-edge-strict`. */
export function strictEdgeFilterName(name: string): string {
  return `${name}-edge-strict`;
}

/**
 * The EnvoyFilter that makes an edge service's own sidecar as strict as difftry's sidecar edge:
 * on its pods (`app: NAME`), every inbound HTTP connection manager (`SIDECAR_INBOUND`) gets the
 * fields of {@link strictEdgeConnectionManager} by `MERGE`. Istio's VirtualService, Gateway and
 * Sidecar carry none of them. It is in the service's namespace, where its `workloadSelector`
 * reaches: the ingress gateway, which may run elsewhere (`istio-system`), is not patched, and
 * what it needs is in the manifest's limits (`meshConfig.pathNormalization`).
 * @see https://istio.io/latest/docs/reference/config/networking/envoy-filter/
 */
export function strictEdgeFilter(name: string, namespace: string): KubernetesObject {
  return {
    apiVersion: ENVOY_FILTER_API_VERSION,
    kind: 'EnvoyFilter',
    metadata: objectMeta(strictEdgeFilterName(name), namespace, { app: name }),
    spec: {
      workloadSelector: { labels: { app: name } },
      configPatches: [
        {
          applyTo: 'NETWORK_FILTER',
          match: {
            context: 'SIDECAR_INBOUND',
            listener: {
              filterChain: { filter: { name: 'envoy.filters.network.http_connection_manager' } },
            },
          },
          patch: {
            operation: 'MERGE',
            value: { typed_config: { '@type': HCM_TYPE, ...strictEdgeConnectionManager() } },
          },
        },
      ],
    },
  };
}

/**
 * What the ingress gateway needs of mesh config for the edge to be as strict as the sidecar's,
 * one sentence (for the manifest's limits): it classifies every request before the edge
 * service's sidecar sees it, with Istio's path normalisation.
 */
export function gatewayStrictnessLimit(edges: readonly string[]): string {
  const filters = edges.map(strictEdgeFilterName).join(', ');
  return (
    'The ingress gateway classifies requests before the edge sidecar sees them, with Istio\'s path normalization (no slash merging by default): set meshConfig.pathNormalization: {normalization: MERGE_SLASHES}, or "//" escapes a path rule. ' +
    `The EnvoyFilter ${filters} makes the edge's own sidecar refuse %2F and %5C (400), drop headers with "_" (x_priority), and keep difftry's header limits and timeouts; the gateway keeps Envoy's defaults (headers_with_underscores_action ALLOW) unless given the same patch (docs/mesh-istio.md, "Strictness at the edge").`
  );
}
