import { describe, expect, it } from 'vitest';
import { parseSidecarConfig } from '../../src/config/parseSidecarConfig.js';
import { isSpecError } from '../../src/config/SpecError.js';
import { DEFAULT_SIDECAR_LIMITS } from '../../src/config/sidecarSchema.js';

// The transport timeouts of a sidecar config, their defaults, and the
// one-line error a bad value gets.

const config = (...lines: string[]): string =>
  [
    'service: frontend',
    'classes: [{ name: high, retries: 5 }, { name: low, retries: 1 }]',
    'inbound: { listen: 127.0.0.1:0, app: "http://127.0.0.1:8080", capacity: 4 }',
    'outbound:',
    '  listen: 127.0.0.1:0',
    '  upstreams:',
    '    - { name: search, url: "http://127.0.0.1:9001" }',
    ...lines,
  ].join('\n');

function messageOf(text: string): string {
  try {
    parseSidecarConfig(text, 'sidecar.yaml');
  } catch (error) {
    if (isSpecError(error)) return error.message;
    throw error;
  }
  throw new Error(`expected a SpecError, but this parsed:\n${text}`);
}

describe('sidecar config: transport timeouts', () => {
  it('defaults to 10 s for headers and 30 s for the whole request', () => {
    const parsed = parseSidecarConfig(config(), 'sidecar.yaml');
    expect(parsed.limits.headersTimeoutMs).toBe(10_000);
    expect(parsed.limits.requestTimeoutMs).toBe(30_000);
    expect(DEFAULT_SIDECAR_LIMITS.headersTimeoutMs).toBe(10_000);
  });

  it('takes upstream and application timeouts', () => {
    const parsed = parseSidecarConfig(
      config('limits: { headersTimeoutMs: 200, requestTimeoutMs: 400 }')
        .replace('9001" }', '9001", headersTimeoutMs: 500, bodyTimeoutMs: 700 }')
        .replace('capacity: 4 }', 'capacity: 4, appHeadersTimeoutMs: 300, appBodyTimeoutMs: 600 }'),
      'sidecar.yaml',
    );
    expect(parsed.limits).toMatchObject({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    expect(parsed.outbound?.upstreams[0]).toMatchObject({
      headersTimeoutMs: 500,
      bodyTimeoutMs: 700,
    });
    expect(parsed.inbound).toMatchObject({ appHeadersTimeoutMs: 300, appBodyTimeoutMs: 600 });
  });

  const refused: Array<[string, string, RegExp]> = [
    [
      'a zero headers timeout',
      'limits: { headersTimeoutMs: 0 }',
      /^sidecar\.yaml:\d+:\d+: limits\.headersTimeoutMs: .*integer from 1 to 2147483647/,
    ],
    [
      'a fractional request timeout',
      'limits: { requestTimeoutMs: 1.5 }',
      /^sidecar\.yaml:\d+:\d+: limits\.requestTimeoutMs: .*integer from 1 to 2147483647/,
    ],
    [
      'a request timeout shorter than the headers timeout',
      'limits: { headersTimeoutMs: 5000, requestTimeoutMs: 1000 }',
      /^sidecar\.yaml:\d+:\d+: limits\.requestTimeoutMs: expected at least headersTimeoutMs \(5000\), got 1000/,
    ],
    [
      'a text upstream headers timeout',
      'x',
      /^sidecar\.yaml:\d+:\d+: outbound\.upstreams\[0\]\.headersTimeoutMs: .*integer from 1 to 2147483647/,
    ],
  ];
  it.each(refused)('refuses %s with one line', (_what, line, expected) => {
    const text =
      line === 'x' ? config().replace('9001" }', '9001", headersTimeoutMs: "10s" }') : config(line);
    const message = messageOf(text);
    expect(message, text).toMatch(expected);
    expect(message).not.toContain('\n');
  });

  it('refuses a negative application body timeout with one line', () => {
    const message = messageOf(
      config().replace('capacity: 4 }', 'capacity: 4, appBodyTimeoutMs: -1 }'),
    );
    expect(message).toMatch(/^sidecar\.yaml:\d+:\d+: inbound\.appBodyTimeoutMs: /);
    expect(message).not.toContain('\n');
  });
});
