import { describe, expect, it } from 'vitest';
import { DEFAULT_SIDECAR_LIMITS } from '../../../src/config/sidecarSchema.js';
import { strictEdgeFilter, strictEdgeFilterName } from '../../../src/deploy/istioStrictEdge.js';
import { strictEdgeConnectionManager } from '../../../src/deploy/strictEdge.js';
import { parseEnvoy } from './envoySchema.js';
import { kubernetesProblems } from './kubernetesSchema.js';

const HCM = 'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

describe('the strict edge: what Envoy can say of what the sidecar edge refuses', () => {
  it('takes the sidecar’s default limits, and Envoy’s protos know every field', () => {
    const fields = strictEdgeConnectionManager();
    expect(fields).toEqual({
      normalize_path: true,
      merge_slashes: true,
      path_with_escaped_slashes_action: 'REJECT_REQUEST',
      max_request_headers_kb: 16, // 16 384 bytes
      request_headers_timeout: '10s',
      request_timeout: '30s',
      common_http_protocol_options: {
        headers_with_underscores_action: 'DROP_HEADER',
        max_headers_count: 100,
      },
    });
    expect(DEFAULT_SIDECAR_LIMITS).toMatchObject({
      maxHeaderBytes: 16_384,
      maxHeaders: 100,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
    });
    expect(() => parseEnvoy(HCM, { stat_prefix: 'edge', ...fields })).not.toThrow();
  });

  it('rounds header bytes up to whole KiB, so the edge never refuses less than the sidecar', () => {
    const fields = strictEdgeConnectionManager({
      maxHeaderBytes: 8193,
      maxHeaders: 7,
      headersTimeoutMs: 250,
      requestTimeoutMs: 1500,
    });
    expect(fields).toMatchObject({
      max_request_headers_kb: 9,
      request_headers_timeout: '0.25s',
      request_timeout: '1.5s',
      common_http_protocol_options: { max_headers_count: 7 },
    });
  });

  it('is an Istio EnvoyFilter on the edge service’s own inbound connection managers', () => {
    const filter = strictEdgeFilter('web', 'shop');
    expect(strictEdgeFilterName('web')).toBe('web-edge-strict');
    expect(kubernetesProblems(filter)).toEqual([]);
    const spec = filter.spec as {
      configPatches: { patch: { value: { typed_config: Record<string, unknown> } } }[];
    };
    const { '@type': type, ...fields } = spec.configPatches[0]?.patch.value.typed_config ?? {};
    expect(type).toBe(`type.googleapis.com/${HCM}`);
    expect(fields).toEqual(strictEdgeConnectionManager());
    // A patch field Envoy does not know is a problem too (Istio's schema leaves the value open).
    const unknown = structuredClone(filter) as typeof filter & { spec: typeof spec };
    (
      unknown.spec.configPatches[0]?.patch.value.typed_config as Record<string, unknown>
    ).normalise_path = true;
    expect(kubernetesProblems(unknown).join('\n')).toMatch(/normalise_path/);
  });
});
