import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadNetworkFile, parseNetwork } from '../../src/config/index.js';
import { checkSidecarConfig, parseSidecarConfig } from '../../src/config/parseSidecarConfig.js';
import { sidecarsFromNetwork } from '../../src/deploy/sidecarsFromNetwork.js';

const example = (file: string) => new URL(`../../examples/${file}`, import.meta.url).pathname;

describe('sidecarsFromNetwork', () => {
  it('gives every service of hotel-calls.yaml its sidecar', async () => {
    const network = await loadNetworkFile(example('hotel-calls.yaml'));
    const configs = sidecarsFromNetwork(network);
    expect(configs.map((c) => c.service)).toStrictEqual([
      'frontend',
      'search',
      'geo',
      'rate',
      'reservation',
      'profile',
      'recommendation',
      'user',
    ]);
    const [frontend, search, geo] = configs;
    expect(frontend).toStrictEqual({
      service: 'frontend',
      classes: [
        { name: 'high', retries: 5 },
        { name: 'low', retries: 1 },
      ],
      identity: { tokenEnv: 'DIFFTRY_MESH_TOKEN' },
      inbound: {
        listen: '127.0.0.1:15000',
        app: 'http://127.0.0.1:8080',
        concurrency: 1,
        capacity: 50,
        // The file's edge section.
        edge: { rules: [{ path: '/reservation', class: 'high' }], default: 'low' },
      },
      outbound: {
        listen: '127.0.0.1:15001',
        // Every child of every branch, once, in the order first met.
        upstreams: [
          { name: 'search', url: 'http://127.0.0.1:15002' },
          { name: 'reservation', url: 'http://127.0.0.1:15008' },
          { name: 'profile', url: 'http://127.0.0.1:15010' },
          { name: 'recommendation', url: 'http://127.0.0.1:15012' },
          { name: 'user', url: 'http://127.0.0.1:15014' },
        ],
      },
    });
    expect(search?.inbound).toStrictEqual({
      listen: '127.0.0.1:15002',
      app: 'http://127.0.0.1:8081',
      concurrency: 1,
      capacity: 50,
      trust: { peers: ['frontend'] },
    });
    expect(search?.outbound?.upstreams.map((u) => u.name)).toStrictEqual(['geo', 'rate']);
    // A leaf: admission only, trusting its one caller.
    expect(geo?.outbound).toBeUndefined();
    expect(geo?.inbound?.trust).toStrictEqual({ peers: ['search'] });
    for (const config of configs) {
      // Every config is valid, and survives YAML as `mesh sidecars` writes it.
      expect(() => checkSidecarConfig(config, config.service)).not.toThrow();
      expect(parseSidecarConfig(stringify(config), `${config.service}.yaml`)).toStrictEqual(
        checkSidecarConfig(config),
      );
    }
  });

  it('takes upstreams from routes, retry overrides from the callee, and the options', () => {
    const network = parseNetwork(
      [
        'backoff: { kind: constant, delayMs: 5 }',
        'classes: [{ name: gold, retries: 3, timeoutMs: 200 }, { name: bronze, retries: 1 }]',
        'services:',
        '  - { name: a, capacity: 10, queue: 7, arrivals: { gold: 1 }, routes: [{ to: b, p: 0.5 }, { to: b, p: 0.2, class: gold }] }',
        '  - { name: b, capacity: 10, queue: 3, retries: { bronze: 0 }, routes: [{ to: a, p: 0.1 }] }',
      ].join('\n'),
      'net.yaml',
    );
    const [a, b] = sidecarsFromNetwork(network, {
      host: '10.0.0.5',
      basePort: 20000,
      appBasePort: 9000,
      tokenEnv: 'MESH',
      edgeRules: [{ header: 'x-api-key', valueEnv: 'GOLD_KEYS', class: 'gold' }],
      edgePeers: ['loadgen'],
    });
    expect(a).toMatchObject({
      backoff: { kind: 'constant', delayMs: 5 },
      classes: [
        { name: 'gold', retries: 3, timeoutMs: 200 },
        { name: 'bronze', retries: 1 },
      ],
      identity: { tokenEnv: 'MESH' },
      inbound: {
        listen: '10.0.0.5:20000',
        app: 'http://10.0.0.5:9000',
        capacity: 7,
        edge: { rules: [{ header: 'x-api-key', valueEnv: 'GOLD_KEYS', class: 'gold' }] },
        // A cycle: b calls a back; the load generator is trusted at the edge.
        trust: { peers: ['b', 'loadgen'] },
      },
      outbound: {
        listen: '10.0.0.5:20001',
        upstreams: [{ name: 'b', url: 'http://10.0.0.5:20002', retries: { bronze: 0 } }],
      },
    });
    expect(b?.inbound?.edge).toBeUndefined();
    expect(b?.inbound?.trust).toStrictEqual({ peers: ['a'] });
    expect(b?.outbound?.upstreams).toStrictEqual([{ name: 'a', url: 'http://10.0.0.5:20000' }]);
  });

  it('refuses ports past 65535', async () => {
    const network = await loadNetworkFile(example('hotel-calls.yaml'));
    expect(() => sidecarsFromNetwork(network, { basePort: 65_530 })).toThrow(
      /basePort should be an integer from 1 to 65520 for 8 services, got 65530/,
    );
  });
});
