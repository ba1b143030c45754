import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isSpecError } from '../../src/config/SpecError.js';
import { type SidecarHandle, startSidecar } from '../../src/mesh/index.js';
import { runCli } from '../cli/runCli.js';
import { type LoopbackServer, reply, startServer } from '../runtime/loopback.js';

// Blank API keys and header variants on the wire: real sockets on 127.0.0.1, port 0 only; every socket is
// bounded by a timeout and every server and sidecar is closed after each test.

const TEST_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 5_000;
const classes = [
  { name: 'high', retries: 1 },
  { name: 'low', retries: 0 },
];

const servers: LoopbackServer[] = [];
const sidecars: SidecarHandle[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(sidecars.splice(0).map((s) => s.close({ graceMs: 0 })));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function app(): Promise<LoopbackServer & { origin: string }> {
  const server = await startServer((_req, res) => reply(res, 200, 'ok'));
  servers.push(server);
  return Object.assign(server, { origin: new URL(server.url).origin });
}

/** An edge sidecar before `origin`: API keys from `KEYS` are high, everything else low. */
async function edgeSidecar(origin: string, keys: string): Promise<SidecarHandle> {
  const started = await startSidecar(
    {
      service: 'frontend',
      classes,
      inbound: {
        listen: '127.0.0.1:0',
        app: origin,
        capacity: 10,
        edge: {
          rules: [{ header: 'x-api-key', valueEnv: 'KEYS', class: 'high' }],
          default: 'low',
        },
      },
    },
    { env: { KEYS: keys }, source: 'edge.yaml' },
  );
  sidecars.push(started);
  return started;
}

/**
 * Sends `head` (request line and header lines, without the blank line) byte for byte over a new
 * connection and resolves with the response's status code.
 */
function sendRaw(url: string, head: readonly string[]): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    socket.setTimeout(SOCKET_TIMEOUT_MS, () => socket.destroy(new Error('no response')));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(received);
      if (status !== null && received.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed without a response: ${received}`)));
    socket.write(`${[...head, 'Connection: close'].join('\r\n')}\r\n\r\n`);
  });
}

describe('edge API keys: a blank entry never lets an empty key in', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it.each([
    ['a trailing comma', 'k1,k2,', 3, 3],
    ['a blank list', ' ', 1, 1],
    ['a blank entry between keys', 'k1, ,k2', 2, 3],
    ['a leading comma', ',k1', 1, 2],
  ])(
    'refuses %s at start-up, naming the variable and position, never a key',
    async (_what, keys, position, count) => {
      const service = await app();
      const started = edgeSidecar(service.origin, keys);
      await expect(started).rejects.toSatisfy(isSpecError);
      await expect(started).rejects.toThrow(
        `edge.yaml: inbound.edge.rules[0].valueEnv: environment variable KEYS has a blank entry at position ${position} of ${count}, expected comma-separated non-blank values`,
      );
      const message = await started.catch((error: Error) => error.message);
      expect(message).not.toMatch(/k1|k2/);
    },
  );

  it('classes an empty or blank presented key as the default, a listed key high', async () => {
    const service = await app();
    const proxy = await edgeSidecar(service.origin, 'k1, k2');
    const url = proxy.inboundUrl as string;
    const host = `Host: ${new URL(url).host}`;
    expect(await sendRaw(url, ['GET /a HTTP/1.1', host, 'x-api-key:'])).toBe(200);
    expect(await sendRaw(url, ['GET /b HTTP/1.1', host, 'x-api-key:    '])).toBe(200);
    expect(await sendRaw(url, ['GET /c HTTP/1.1', host, 'x-api-key: k2'])).toBe(200);
    expect(await sendRaw(url, ['GET /d HTTP/1.1', host, 'x-api-key: k1,'])).toBe(200);
    expect(service.requests.map((r) => r.headers['x-priority'])).toStrictEqual([
      'low',
      'low',
      'high',
      'low',
    ]);
  });

  it('refuses a blank literal value in the config', async () => {
    const service = await app();
    const started = startSidecar(
      {
        service: 'frontend',
        classes,
        inbound: {
          listen: '127.0.0.1:0',
          app: service.origin,
          capacity: 10,
          edge: { rules: [{ header: 'x-api-key', value: ' ', class: 'high' }] },
        },
      },
      { source: 'edge.yaml' },
    );
    await expect(started).rejects.toThrow(
      /^edge\.yaml: inbound\.edge\.rules\[0\]\.value: .*non-blank/,
    );
  });
});

describe('difftry proxy --config with a blank API-key entry', { timeout: TEST_TIMEOUT_MS }, () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('exits 2 with one line naming the variable and position, and never listens', async () => {
    const service = await app();
    dir = await mkdtemp(join(tmpdir(), 'difftry-keys-'));
    const file = join(dir, 'edge.yaml');
    await writeFile(
      file,
      [
        'service: frontend',
        'classes: [{ name: high, retries: 1 }, { name: low, retries: 0 }]',
        `inbound: { listen: 127.0.0.1:0, app: "${service.origin}", capacity: 5, edge: { rules: [{ header: x-api-key, valueEnv: DIFFTRY_TEST_KEYS, class: high }], default: low } }`,
      ].join('\n'),
    );
    vi.stubEnv('DIFFTRY_TEST_KEYS', 'secret-one,secret-two,');
    const { code, stdout, stderr } = await runCli('proxy', '--config', file);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain('inbound.edge.rules[0].valueEnv');
    expect(stderr).toContain('DIFFTRY_TEST_KEYS has a blank entry at position 3 of 3');
    expect(stderr).not.toContain('secret');
  });
});

describe('edge: header-name variants of the class header', { timeout: TEST_TIMEOUT_MS }, () => {
  it('strips x_priority, X_Priority and x-PRIORITY before the application sees the request', async () => {
    const service = await app();
    const proxy = await edgeSidecar(service.origin, 'k1');
    const url = proxy.inboundUrl as string;
    const host = `Host: ${new URL(url).host}`;
    const status = await sendRaw(url, [
      'GET /x HTTP/1.1',
      host,
      'x_priority: high',
      'X_Priority: high',
      'X-PRIORITY: high',
      'x-priority_: high',
      'x_priority_hint: kept',
    ]);
    expect(status).toBe(200);
    const [seen] = service.requests;
    expect(seen?.headers['x-priority']).toBe('low');
    expect(seen?.headers.x_priority).toBeUndefined();
    expect(seen?.headers['x-priority_']).toBe('high');
    expect(seen?.headers.x_priority_hint).toBe('kept');
  });

  it('strips them from a trusted peer too, keeping the class it was given', async () => {
    const service = await app();
    const proxy = await startSidecar(
      {
        service: 'search',
        classes,
        identity: { tokenEnv: 'MESH_TOKEN' },
        inbound: {
          listen: '127.0.0.1:0',
          app: service.origin,
          capacity: 10,
          trust: { peers: ['frontend'] },
        },
      },
      { env: { MESH_TOKEN: 'mesh-token' } },
    );
    sidecars.push(proxy);
    const url = proxy.inboundUrl as string;
    const status = await sendRaw(url, [
      'GET /x HTTP/1.1',
      `Host: ${new URL(url).host}`,
      'x-difftry-peer: frontend;mesh-token',
      'x-priority: low',
      'x_priority: high',
    ]);
    expect(status).toBe(200);
    expect(service.requests[0]?.headers['x-priority']).toBe('low');
    expect(service.requests[0]?.headers.x_priority).toBeUndefined();
  });
});
