import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  checkSidecarConfig,
  loadSidecarConfigFile,
  parseSidecarConfig,
} from '../../src/config/parseSidecarConfig.js';
import { isSpecError, type SpecError } from '../../src/config/SpecError.js';
import { DEFAULT_SIDECAR_LIMITS, parseListen } from '../../src/config/sidecarSchema.js';

const examplePath = new URL('../../examples/sidecar.yaml', import.meta.url).pathname;

/** A minimal valid config; `lines` are appended (top-level keys), starting at line 4. */
const config = (...lines: string[]): string =>
  [
    'service: frontend',
    'classes: [{ name: high, retries: 5 }, { name: low, retries: 1 }]',
    ...lines,
  ]
    .join('\n')
    .concat('\n');
const outbound = [
  'outbound:',
  '  listen: 127.0.0.1:0',
  '  upstreams:',
  '    - { name: search, url: "http://127.0.0.1:9001" }',
];

function specErrorOf(text: string): SpecError {
  try {
    parseSidecarConfig(text, 'sidecar.yaml');
  } catch (error) {
    if (isSpecError(error)) return error;
    throw error;
  }
  throw new Error(`expected a SpecError, but this parsed:\n${text}`);
}

describe('parseSidecarConfig: valid configs', () => {
  it('applies every default', () => {
    expect(parseSidecarConfig(config(...outbound), 'sidecar.yaml')).toStrictEqual({
      service: 'frontend',
      header: 'x-priority',
      classes: [
        { name: 'high', retries: 5, weight: 1 },
        { name: 'low', retries: 1, weight: 1 },
      ],
      outbound: {
        listen: '127.0.0.1:0',
        upstreams: [{ name: 'search', url: 'http://127.0.0.1:9001', mesh: true }],
      },
      limits: { ...DEFAULT_SIDECAR_LIMITS },
      shutdownGraceMs: 10_000,
    });
  });

  it('reads JSON too', () => {
    const json = JSON.stringify({
      service: 'geo',
      classes: [{ name: 'only', retries: 0 }],
      inbound: { listen: 15000, app: 'http://127.0.0.1:8080', capacity: 3 },
    });
    expect(parseSidecarConfig(json, 'geo.json').inbound).toStrictEqual({
      listen: 15000,
      app: 'http://127.0.0.1:8080',
      concurrency: 1,
      capacity: 3,
    });
  });

  it('examples/sidecar.yaml parses, with every section', async () => {
    const example = await loadSidecarConfigFile(examplePath);
    expect(example.service).toBe('frontend');
    expect(example.inbound?.edge?.rules).toHaveLength(3);
    expect(example.outbound?.upstreams.map((u) => u.name)).toStrictEqual([
      'search',
      'reservation',
      'profile',
      'recommendation',
      'user',
    ]);
    expect(example.outbound?.upstreams[0]?.timeout).toStrictEqual({ kind: 'combined' });
    expect(example.identity).toStrictEqual({
      tokenEnv: 'DIFFTRY_MESH_TOKEN',
      header: 'x-difftry-peer',
    });
  });

  it('checkSidecarConfig validates an object built in code, naming the place without a line', () => {
    expect(() =>
      checkSidecarConfig({ service: 'a', classes: [{ name: 'h', retries: -1 }], outbound: {} }),
    ).toThrow(
      /^sidecar config: classes\[0\]\.retries: expected an integer from 0 to 100 \(retries after the first attempt\), got -1$/,
    );
  });
});

describe('parseSidecarConfig: one-line errors with file, line and column', () => {
  it.each([
    [
      'a misspelt field',
      config(...outbound, '    - { name: geo, url: "http://127.0.0.1:9002", timeotMs: 5 }'),
      'sidecar.yaml:7:50: outbound.upstreams[1].timeotMs: unknown field "timeotMs" (did you mean "timeoutMs"?)',
    ],
    [
      'an undeclared class in retries',
      config(...outbound.slice(0, 3), '    - { name: s, url: "http://h:1", retries: { mid: 1 } }'),
      'sidecar.yaml:6:48: outbound.upstreams[0].retries.mid: expected a declared class (high, low), got "mid"',
    ],
    [
      'a bad URL',
      config(...outbound.slice(0, 3), '    - { name: s, url: "ftp://h" }'),
      'sidecar.yaml:6:23: outbound.upstreams[0].url: expected an http:// or https:// URL without credentials, query or fragment, got "ftp://h"',
    ],
    [
      'a bad listen address',
      config('outbound:', '  listen: "localhost"', '  upstreams: [{ name: s, url: "http://h:1" }]'),
      'sidecar.yaml:4:11: outbound.listen: expected a listen address host:port, or a port (on 127.0.0.1), got "localhost"',
    ],
    [
      'capacity below concurrency',
      config('inbound: { listen: 0, app: "http://h:1", concurrency: 4, capacity: 2 }'),
      'sidecar.yaml:3:68: inbound.capacity: expected an integer ≥ concurrency (4), got 2',
    ],
    [
      'a bad timeout strategy',
      config(
        ...outbound.slice(0, 3),
        '    - { name: s, url: "http://h:1", timeout: { kind: rto, minMs: -1 } }',
      ),
      'sidecar.yaml:6:46: outbound.upstreams[0].timeout: expected a valid timeout strategy: minMs should be a finite number in [0, Infinity), got -1',
    ],
    [
      'an unknown timeout kind',
      config(
        ...outbound.slice(0, 3),
        '    - { name: s, url: "http://h:1", timeout: { kind: magic } }',
      ),
      'sidecar.yaml:6:54: outbound.upstreams[0].timeout.kind: expected one of fixed, exponential-backoff, optimizer, controller, combined, rto, got "magic"',
    ],
    [
      'duplicate prefixes',
      config(...outbound, '    - { name: geo, url: "http://127.0.0.1:9002", prefix: /search/ }'),
      'sidecar.yaml:7:58: outbound.upstreams[1].prefix: duplicate upstream prefix "/search", first at outbound.upstreams[0].name',
    ],
    [
      'trusted peers without an identity',
      config('inbound: { listen: 0, app: "http://h:1", capacity: 2, trust: { peers: [a] } }'),
      'sidecar.yaml:3:64: inbound.trust.peers: trusted peers prove who they are with the mesh token, expected identity.tokenEnv',
    ],
    [
      'an edge rule without a condition',
      config(
        'inbound: { listen: 0, app: "http://h:1", capacity: 2, edge: { rules: [{ class: high }] } }',
      ),
      'sidecar.yaml:3:71: inbound.edge.rules[0]: an edge rule needs path, method or header (one rule matching everything is edge.default)',
    ],
    [
      'neither inbound nor outbound',
      config(),
      'sidecar.yaml:1:1: expected inbound, outbound or both, got neither',
    ],
    [
      'a replay limit over the body limit',
      config(...outbound, 'limits: { maxBodyBytes: 10, replayBodyBytes: 11 }'),
      'sidecar.yaml:7:46: limits.replayBodyBytes: expected at most maxBodyBytes (10), got 11',
    ],
    [
      'an empty file',
      '',
      'sidecar.yaml:1:1: expected a sidecar config: a mapping with service, classes and inbound or outbound, got an empty file',
    ],
    ['not YAML', 'service: [', 'sidecar.yaml:1:11: not valid YAML or JSON'],
  ])('%s', (_what, text, message) => {
    const error = specErrorOf(text);
    expect(error.message.startsWith(message), `${error.message}\n  expected ${message}`).toBe(true);
    expect(error.message).not.toContain('\n');
  });

  it('names an unreadable file', async () => {
    await expect(loadSidecarConfigFile('/nonexistent/sidecar.yaml')).rejects.toThrow(
      '/nonexistent/sidecar.yaml: cannot read the file: no such file',
    );
  });

  it('keeps the example in step with the file on disk', async () => {
    const text = await readFile(examplePath, 'utf8');
    expect(() => parseSidecarConfig(text, 'examples/sidecar.yaml')).not.toThrow();
  });
});

describe('parseListen', () => {
  it.each([
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['0.0.0.0:8080', { host: '0.0.0.0', port: 8080 }],
    ['[::1]:15000', { host: '::1', port: 15000 }],
    ['localhost:1', { host: 'localhost', port: 1 }],
    [9000, { host: '127.0.0.1', port: 9000 }],
  ] as const)('%s', (value, expected) => {
    expect(parseListen(value)).toStrictEqual(expected);
  });

  it('refuses what the schema refuses', () => {
    expect(() => parseListen('localhost')).toThrow(RangeError);
    expect(() => parseListen('h:70000')).toThrow(RangeError);
  });
});
