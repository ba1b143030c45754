import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/UsageError.js';
import { exposureWarning, uiCommand } from '../../src/cli/uiCommand.js';
import { isSpecError } from '../../src/spec/SpecError.js';
import { isLoopbackHost } from '../../src/ui/loopback.js';
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

describe('difftry ui', () => {
  it('tells loopback from other hosts', () => {
    for (const host of [
      '127.0.0.1',
      '127.8.0.2',
      'localhost',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com']) {
      expect(isLoopbackHost(host), host).toBe(false);
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

  it('warns what a non-loopback host exposes', async () => {
    const lines: string[] = [];
    await uiCommand(
      { host: '0.0.0.0', port: 0, assetsDir: assets, log: (line) => lines.push(line) },
      AbortSignal.abort(),
    );
    expect(lines[0]).toBe(exposureWarning('0.0.0.0'));
  });
});
