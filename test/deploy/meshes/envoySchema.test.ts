import { describe, expect, it } from 'vitest';
import { parseEnvoy } from './envoySchema.js';

// The strict check must refuse what Envoy refuses, or the generators' tests could not fail.

const BOOTSTRAP = 'envoy.config.bootstrap.v3.Bootstrap';
const HCM =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

/** A small valid bootstrap: one listener whose route retries, one cluster. */
function bootstrap(retryPolicy: Record<string, unknown> = { num_retries: 3, retry_on: '5xx' }) {
  return {
    static_resources: {
      clusters: [{ name: 'b', connect_timeout: '0.25s', type: 'STATIC' }],
      listeners: [
        {
          name: 'out',
          address: { socket_address: { address: '127.0.0.1', port_value: 15001 } },
          filter_chains: [
            {
              filters: [
                {
                  name: 'envoy.filters.network.http_connection_manager',
                  typed_config: {
                    '@type': HCM,
                    stat_prefix: 'out',
                    route_config: {
                      virtual_hosts: [
                        {
                          name: 'b',
                          domains: ['*'],
                          routes: [
                            {
                              match: { prefix: '/' },
                              route: { cluster: 'b', retry_policy: retryPolicy },
                            },
                          ],
                        },
                      ],
                    },
                  },
                },
              ],
            },
          ],
        },
      ],
    },
  };
}

describe("Envoy's own schema, strictly", () => {
  it('accepts a valid bootstrap, its typed_config checked against the message it names', () => {
    expect(() => parseEnvoy(BOOTSTRAP, bootstrap())).not.toThrow();
    expect(() =>
      parseEnvoy(
        BOOTSTRAP,
        bootstrap({
          num_retries: 2,
          per_try_timeout: '0.2s',
          retry_back_off: { base_interval: '0.025s' },
        }),
      ),
    ).not.toThrow();
  });

  it.each([
    ['an unknown field', { num_retries: 3, retries: 3 }, /key "retries" is unknown/],
    ['a wrong type', { num_retries: 'three' }, /expected number/],
    ['a bad duration', { num_retries: 1, per_try_timeout: '200ms' }, /Duration/],
  ])('refuses %s in a retry policy', (_, policy, message) => {
    expect(() => parseEnvoy(BOOTSTRAP, bootstrap(policy))).toThrow(message);
  });

  it('refuses an unknown enum value and an unknown top-level key', () => {
    const badType = bootstrap();
    (badType.static_resources.clusters[0] as { type: string }).type = 'NOPE';
    expect(() => parseEnvoy(BOOTSTRAP, badType)).toThrow(/DiscoveryType/);
    expect(() => parseEnvoy(BOOTSTRAP, { static_resource: {} })).toThrow(/unknown/);
  });

  it('refuses a typed_config whose fields do not belong to the type it names', () => {
    const wrong = JSON.parse(
      JSON.stringify(bootstrap()).replace(
        '"stat_prefix":"out"',
        '"stat_prefix":"out","cluster":"b"',
      ),
    );
    expect(() => parseEnvoy(BOOTSTRAP, wrong)).toThrow(/HttpConnectionManager/);
  });
});
