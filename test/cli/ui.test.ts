import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/UsageError.js';
import { exposureWarning, uiCommand } from '../../src/cli/uiCommand.js';
import { isSpecError } from '../../src/config/SpecError.js';
import { allowedHosts, hostAndOriginRefusal } from '../../src/ui/allowedHosts.js';
import { isJsonMediaType } from '../../src/ui/jsonMediaType.js';
import { listenHost } from '../../src/ui/listenHost.js';
import { isLoopbackAddress } from '../../src/ui/loopback.js';
import { assetPath } from '../../src/ui/staticAssets.js';
import type { TestbedEvent, TestbedJobRunner } from '../../src/ui/TestbedJob.js';
import { startUiServer, type UiServer } from '../../src/ui/uiServer.js';

let assets: string;

beforeAll(async () => {
  assets = await mkdtemp(join(tmpdir(), 'difftry-ui-assets-'));
  await writeFile(join(assets, 'index.html'), '<!doctype html><title>difftry</title>');
  await writeFile(join(assets, 'app.js'), 'export {};');
});
afterAll(async () => {
  await rm(assets, { recursive: true, force: true });
});

/** A runner that emits one point, then waits until stopped or released. */
function heldRunner(): { runner: TestbedJobRunner; release: () => void } {
  let release = () => {};
  const runner: TestbedJobRunner = async (request, { signal, emit }) => {
    emit({ kind: 'started', request, points: 1 });
    emit({ kind: 'progress', fraction: 0.5, label: 'half' });
    emit({
      kind: 'point',
      x: 250,
      k: '5/1',
      classes: [{ name: 'high', measured: 0.2, ci95: 0.01, predicted: 0.21, p50: 0.1 }],
    });
    await new Promise<void>((resolve) => {
      release = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  };
  return { runner, release: () => release() };
}

/** Reads server-sent events until `until` says stop (or 5 s pass). */
async function readEvents(
  url: string,
  until: (events: TestbedEvent[]) => boolean,
): Promise<TestbedEvent[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5000);
  const events: TestbedEvent[] = [];
  try {
    const response = await fetch(url, { signal: controller.signal });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (data !== undefined) events.push(JSON.parse(data.slice(6)) as TestbedEvent);
        end = buffer.indexOf('\n\n');
      }
      if (until(events)) break;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return events;
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('the UI server', () => {
  let server: UiServer;
  let held: ReturnType<typeof heldRunner>;

  beforeAll(async () => {
    held = heldRunner();
    server = await startUiServer({
      assetsDir: assets,
      runner: held.runner,
      network: { fileName: 'net.yaml', text: 'classes: []' },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('listens on 127.0.0.1 and serves the built page', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toMatch(/<title>difftry/);
    const script = await fetch(`${server.url}app.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${server.url}missing.js`)).status).toBe(404);
  });

  it('never serves a file outside the built page', async () => {
    expect(assetPath('/srv/web', '/../etc/passwd')).toBeUndefined();
    expect(assetPath('/srv/web', '/%2e%2e/%2e%2e/etc/passwd')).toBeUndefined();
    expect(assetPath('/srv/web', '/a\\..\\b')).toBeUndefined();
    expect(assetPath('/srv/web', '/%E0%A4%A')).toBeUndefined();
    expect(assetPath('/srv/web', '/')).toBe('/srv/web/index.html');
    expect(assetPath('/srv/web', '/assets/x.js')).toBe('/srv/web/assets/x.js');
    const response = await fetch(`${server.url}%2e%2e/%2e%2e/etc/passwd`);
    expect(response.status).toBe(404);
  });

  it('gives the page the network file it was started with', async () => {
    const response = await fetch(`${server.url}api/network`);
    expect(await response.json()).toEqual({ fileName: 'net.yaml', text: 'classes: []' });
  });

  it('refuses bad testbed requests with a reason', async () => {
    const api = `${server.url}api/testbed`;
    expect((await post(api, 'not json')).status).toBe(400);
    const unknown = await post(api, { kind: 'soak' });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toMatch(/^kind: /);
    const long = await post(api, { kind: 'run', durationS: 3600 });
    expect(((await long.json()) as { error: string }).error).toMatch(/^durationS: /);
    expect((await post(api, { kind: 'run', extra: 1 })).status).toBe(400);
    const plain = await fetch(api, { method: 'POST', body: '{"kind":"run"}' });
    expect(plain.status).toBe(415);
    const foreign = await post(api, { kind: 'run' }, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await post(api, 'x'.repeat(20_000))).status).toBe(413);
  });

  it('runs one job at a time, streams its events, and stops it', async () => {
    const api = `${server.url}api/testbed`;
    expect((await post(api, { kind: 'fig5', durationS: 1 })).status).toBe(202);
    const busy = await post(api, { kind: 'run' });
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { error: string }).error).toMatch(/already running/);
    // A page that connects late still sees everything from the start.
    const events = await readEvents(`${server.url}api/testbed/events`, (e) =>
      e.some((x) => x.kind === 'point'),
    );
    expect(events.map((e) => e.kind)).toEqual(['started', 'progress', 'point']);
    expect(events[0]).toMatchObject({ kind: 'started', request: { kind: 'fig5', durationS: 1 } });
    const stopped = readEvents(`${server.url}api/testbed/events`, (e) =>
      e.some((x) => x.kind === 'stopped'),
    );
    expect((await post(`${api}/stop`, {})).status).toBe(204);
    expect((await stopped).at(-1)?.kind).toBe('stopped');
    expect((await post(`${api}/stop`, {})).status).toBe(404);
    // Free again.
    expect((await post(api, { kind: 'run' })).status).toBe(202);
    held.release();
    const done = await readEvents(`${server.url}api/testbed/events`, (e) =>
      e.some((x) => x.kind === 'done'),
    );
    expect(done.at(-1)?.kind).toBe('done');
  });
});

/** A request with the headers exactly as given (`fetch` sets Host itself). */
function rawGet(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method, headers, setHost: false, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          // An event stream never ends: its first comment is enough.
          if (text.startsWith(': difftry')) res.destroy();
        });
        const done = () =>
          resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers });
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends raw bytes and returns the status of the first response. */
function rawStatus(port: number, bytes: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (status !== null) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on('error', () => resolve(0));
    socket.on('close', () => resolve(0));
    socket.write(bytes);
  });
}

describe('the UI server behind a rebinding DNS name', () => {
  let server: UiServer;
  let started: number;

  beforeAll(async () => {
    started = 0;
    const runner: TestbedJobRunner = async (request, { signal, emit }) => {
      started += 1;
      emit({ kind: 'started', request, points: 1 });
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    };
    server = await startUiServer({
      assetsDir: assets,
      runner,
      network: { fileName: 'net.yaml', text: 'classes: []' },
      maxEventStreams: 3,
      headersTimeoutMs: 200,
      requestTimeoutMs: 400,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers only a Host that names it, on every path', async () => {
    const port = server.port;
    const rebound = { host: `rebind.example:${port}`, origin: `http://rebind.example:${port}` };
    for (const path of ['/', '/app.js', '/api/network', '/api/testbed/events', '/missing']) {
      const response = await rawGet(port, path, rebound);
      expect(response.status, path).toBe(421);
      expect(response.body, path).not.toContain('classes: []');
    }
    const run = JSON.stringify({ kind: 'run', durationS: 0.2, warmupS: 0, scale: 0.01 });
    const post = await rawGet(
      port,
      '/api/testbed',
      { ...rebound, 'content-type': 'application/json' },
      'POST',
      run,
    );
    expect(post.status).toBe(421);
    expect(started).toBe(0);
    // Without Origin too: curl, or a rebinding page's simple GET.
    expect((await rawGet(port, '/api/network', { host: `evil:${port}` })).status).toBe(421);
    // The wrong port is another server.
    expect((await rawGet(port, '/api/network', { host: '127.0.0.1:1' })).status).toBe(421);
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `LOCALHOST:${port}`,
    ]) {
      const response = await rawGet(port, '/api/network', { host });
      expect(response.status, host).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ fileName: 'net.yaml', text: 'classes: []' });
    }
  });

  it('refuses an Origin that is not one of its hosts', async () => {
    const port = server.port;
    const host = `127.0.0.1:${port}`;
    for (const origin of ['null', `http://rebind.example:${port}`, `https://127.0.0.1:${port}`]) {
      expect((await rawGet(port, '/api/network', { host, origin })).status, origin).toBe(403);
    }
    // The page opened as localhost may call the server as 127.0.0.1 (a GET it cannot read
    // cross-origin anyway); the origin is one of the server's own.
    const same = await rawGet(port, '/api/network', { host, origin: `http://localhost:${port}` });
    expect(same.status).toBe(200);
  });

  it('refuses two Host lines, a missing Host and a target that is not a path', async () => {
    const port = server.port;
    const host = `127.0.0.1:${port}`;
    expect(
      await rawStatus(port, `GET /api/network HTTP/1.1\r\nHost: ${host}\r\nHost: evil\r\n\r\n`),
    ).toBe(400);
    expect(await rawStatus(port, 'GET /api/network HTTP/1.0\r\n\r\n')).toBe(400);
    expect(await rawStatus(port, `GET http://[x/ HTTP/1.1\r\nHost: ${host}\r\n\r\n`)).toBe(400);
    expect(
      await rawStatus(port, `GET http://evil/api/network HTTP/1.1\r\nHost: ${host}\r\n\r\n`),
    ).toBe(400);
  });

  it('parses the media type of a POST', async () => {
    const port = server.port;
    const host = `127.0.0.1:${port}`;
    for (const type of [
      'application/jsonfoo',
      'application/json-seq',
      'text/plain',
      'application/json; charset=latin1',
    ]) {
      const response = await rawGet(
        port,
        '/api/testbed/stop',
        { host, 'content-type': type },
        'POST',
        '{}',
      );
      expect(response.status, type).toBe(415);
    }
    const json = await rawGet(
      port,
      '/api/testbed/stop',
      { host, 'content-type': 'Application/JSON ; charset="UTF-8"' },
      'POST',
      '{}',
    );
    expect(json.status).toBe(404);
    expect(isJsonMediaType('application/json')).toBe(true);
    expect(isJsonMediaType(undefined)).toBe(false);
  });

  it('holds a bounded number of event streams, and says when to come back', async () => {
    const port = server.port;
    const host = `127.0.0.1:${port}`;
    const held: Array<() => void> = [];
    try {
      for (let i = 0; i < 3; i++) {
        held.push(await openStream(port, host));
      }
      const refused = await rawGet(port, '/api/testbed/events', { host });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.body).toMatch(/at most 3 event streams/);
    } finally {
      for (const close of held) close();
    }
    await expect
      .poll(async () => (await rawGet(port, '/api/testbed/events', { host })).status)
      .toBe(200);
  });

  it('cuts a client that trickles its head', async () => {
    const port = server.port;
    const status = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
      });
      socket.on('close', () => resolve(received));
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    });
    expect(status).toMatch(/^HTTP\/1\.1 408/);
  });

  it('knows its hosts and origins', () => {
    const allowed = allowedHosts(80, ['::1', 'box.lan']);
    expect([...allowed]).toEqual(
      expect.arrayContaining(['127.0.0.1:80', '127.0.0.1', 'localhost', '[::1]:80', 'box.lan:80']),
    );
    expect(hostAndOriginRefusal(allowed, 'box.lan', 'http://box.lan')).toBeUndefined();
    expect(hostAndOriginRefusal(allowed, 'evil', undefined)?.status).toBe(421);
    expect(hostAndOriginRefusal(allowed, undefined, undefined)?.status).toBe(400);
    expect(hostAndOriginRefusal(allowed, 'localhost', 'http://evil')?.status).toBe(403);
  });
});

/** Opens an event stream and resolves, once its first bytes came, with a function closing it. */
function openStream(port: number, host: string): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/api/testbed/events', headers: { host }, agent: false },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        res.once('data', () => resolve(() => req.destroy()));
      },
    );
    req.on('error', () => {});
    req.end();
  });
}

describe('difftry ui', () => {
  it('tells loopback from other addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.0.2',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
    ]) {
      expect(isLoopbackAddress(address), address).toBe(true);
    }
    for (const address of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', '::ffff:a00:1', 'a.b']) {
      expect(isLoopbackAddress(address), address).toBe(false);
    }
    expect(exposureWarning('0.0.0.0')).toMatch(
      /every machine that reaches this address.*testbed runs/,
    );
  });

  it('serves until stopped, and says where', async () => {
    const lines: string[] = [];
    const controller = new AbortController();
    let url = '';
    const done = uiCommand(
      {
        port: 0,
        assetsDir: assets,
        example: 'hotel',
        log: (line) => lines.push(line),
        onListening: (server) => {
          url = server.url;
        },
      },
      controller.signal,
    );
    await expect.poll(() => url).not.toBe('');
    expect(lines).toEqual([`difftry ui: serving on ${url} (Ctrl-C stops it)`]);
    const network = (await (await fetch(`${url}api/network`)).json()) as { fileName: string };
    expect(network.fileName).toBe('examples/hotel.yaml');
    controller.abort();
    expect((await done).stderr).toBe('ui stopped');
  });

  it('checks a network file before serving it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'difftry-ui-file-'));
    try {
      const file = join(dir, 'bad.yaml');
      await writeFile(
        file,
        'classes: [{ name: high, retries: 1 }]\nservices:\n  - { name: a, capacity: -3 }\n',
      );
      const failure = await uiCommand(
        { file, port: 0, assetsDir: assets, log: () => {} },
        AbortSignal.abort(),
      ).catch((error: unknown) => error);
      expect(isSpecError(failure)).toBe(true);
      expect(String((failure as Error).message)).toMatch(
        /bad\.yaml:3:\d+: services\[0\]\.capacity/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(
        uiCommand({ port, assetsDir: assets, log: () => {} }, AbortSignal.abort()),
      ).rejects.toThrow(UsageError);
      await expect(
        uiCommand({ port, assetsDir: assets, log: () => {} }, AbortSignal.abort()),
      ).rejects.toThrow(/in use; .*--port 0/);
    } finally {
      blocker.close();
    }
  });

  it('reads --host as an address or a name, brackets optional, never empty', async () => {
    expect(listenHost('[::1]')).toEqual({ address: '::1', urlHost: '[::1]' });
    expect(listenHost('::1')).toEqual({ address: '::1', urlHost: '[::1]' });
    expect(listenHost('127.1')).toEqual({ address: '127.1', urlHost: '127.1' });
    expect(listenHost('LocalHost')).toEqual({ address: 'localhost', urlHost: 'localhost' });
    for (const bad of ['', ' ', '[127.0.0.1]', 'a b', 'http://x', '[::1', 'a/b']) {
      expect(listenHost(bad), bad).toHaveProperty('error');
    }
    await expect(
      uiCommand({ host: '', port: 0, assetsDir: assets, log: () => {} }, AbortSignal.abort()),
    ).rejects.toThrow(/^--host: empty; /);
    // `[::1]` listens on IPv6 loopback (where the machine has it), and says so with brackets.
    const lines: string[] = [];
    let url = '';
    const served = await uiCommand(
      {
        host: '[::1]',
        port: 0,
        assetsDir: assets,
        log: (line) => lines.push(line),
        onListening: (server) => {
          url = server.url;
        },
      },
      AbortSignal.abort(),
    ).catch((error: unknown) => error);
    if (served instanceof UsageError) {
      expect(served.message).toMatch(/^--host \[::1\]: no such address/);
    } else {
      expect(url).toMatch(/^http:\/\/\[::1\]:\d+\/$/);
      expect(lines).toEqual([`difftry ui: serving on ${url} (Ctrl-C stops it)`]);
    }
  });

  it('warns only when the address bound is not loopback, however it is spelt', async () => {
    const lines: string[] = [];
    for (const host of ['127.1', 'localhost', '127.0.0.2']) {
      await uiCommand(
        { host, port: 0, assetsDir: assets, log: (line) => lines.push(line) },
        AbortSignal.abort(),
      );
    }
    expect(lines.filter((line) => line.includes('not loopback'))).toEqual([]);
  });

  it('warns what a non-loopback host exposes', async () => {
    const lines: string[] = [];
    await uiCommand(
      { host: '0.0.0.0', port: 0, assetsDir: assets, log: (line) => lines.push(line) },
      AbortSignal.abort(),
    );
    expect(lines[0]).toBe(exposureWarning('0.0.0.0'));
  });
});
