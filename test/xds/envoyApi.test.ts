import { describe, expect, it } from 'vitest';
import { parseEnvoy } from '../../src/xds/envoyApi.js';

// Envoy's own messages, strictly: what a generated document may and may not say.

describe('envoyApi', () => {
  it('reads map fields as maps, and checks the Any inside them', () => {
    const cluster = {
      name: 'xds_cluster',
      typed_extension_protocol_options: {
        'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
          '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
          explicit_http_config: { http2_protocol_options: {} },
        },
      },
    };
    expect(() => parseEnvoy('envoy.config.cluster.v3.Cluster', cluster)).not.toThrow();
    expect(() =>
      parseEnvoy('envoy.config.cluster.v3.Cluster', {
        name: 'x',
        typed_extension_protocol_options: [1],
      }),
    ).toThrow(/typed_extension_protocol_options/);
  });

  it('refuses unknown fields, wrong types and bad durations', () => {
    const route = (extra: Record<string, unknown>) => ({
      name: 'r',
      virtual_hosts: [
        { name: 'v', domains: ['*'], routes: [{ match: { prefix: '/' }, ...extra }] },
      ],
    });
    expect(() =>
      parseEnvoy('envoy.config.route.v3.RouteConfiguration', route({ route: { cluster: 'c' } })),
    ).not.toThrow();
    for (const bad of [
      { route: { cluster: 'c', retry_policy: { num_retries: 'two' } } },
      { route: { cluster: 'c', retry_policy: { per_try_timeout: '1.5 s' } } },
      { route: { cluster: 'c', retries: 2 } },
    ]) {
      expect(() => parseEnvoy('envoy.config.route.v3.RouteConfiguration', route(bad))).toThrow();
    }
  });
});
