// The soak's clients (src/experiments/soak/soakClient.ts) against loopback servers on port 0:
// each request ends in exactly the outcome its client saw — a whole response, a cut body, a
// reset, a close.
import { Agent, createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOutcome, runSlowClient, sendRequest } from '../../src/experiments/soak/soakClient.js';
import { SOAK_KINDS, type SoakKind } from '../../src/experiments/soak/soakTraffic.js';

const base = SOAK_KINDS.find((k) => k.name === 'edge low') as SoakKind;
const at = (path: string): SoakKind => ({ ...base, path });

function listen(server: Server | ReturnType<typeof createNetServer>): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

describe('sendRequest', () => {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    switch (req.url) {
      case '/ok':
        res.writeHead(200, { 'content-length': 3 }).end('ok\n');
        return;
      case '/busy':
        res.writeHead(503, { 'content-length': 0 }).end();
        return;
      case '/cut':
        res.writeHead(200, { 'content-length': 100 });
        res.write('half');
        setImmediate(() => req.socket.destroy());
        return;
      case '/reset':
        req.socket.resetAndDestroy();
        return;
      case '/close':
        req.socket.end();
        return;
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  let url = '';
  beforeAll(async () => {
    url = await listen(server);
  });
  afterAll(async () => {
    agent.destroy();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('tells a whole response by its status, and a short body as cut', async () => {
    expect(await sendRequest(at('/ok'), url, agent)).toEqual({ type: 'status', status: 200 });
    expect(await sendRequest(at('/busy'), url, agent)).toEqual({ type: 'status', status: 503 });
    expect(await sendRequest(at('/cut'), url, agent)).toEqual({ type: 'cut', status: 200 });
  });

  it('tells a reset from a clean close before any response', async () => {
    expect(await sendRequest(at('/reset'), url, agent)).toMatchObject({ type: 'reset' });
    expect(await sendRequest(at('/close'), url, agent)).toMatchObject({ type: 'closed' });
  });

  it('settles each of many concurrent requests once', async () => {
    const paths = ['/ok', '/busy', '/cut', '/reset', '/close'];
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) => sendRequest(at(paths[i % 5] as string), url, agent)),
    );
    const types = outcomes.map((o) => o.type);
    expect(types.filter((t) => t === 'status')).toHaveLength(20);
    expect(types.filter((t) => t === 'cut')).toHaveLength(10);
    expect(types.filter((t) => t === 'reset')).toHaveLength(10);
    expect(types.filter((t) => t === 'closed')).toHaveLength(10);
  });

  it('names a refused connection by its code', async () => {
    const gone = createNetServer();
    const goneUrl = await listen(gone);
    await new Promise((resolve) => gone.close(resolve));
    expect(await sendRequest(at('/ok'), goneUrl, agent)).toMatchObject({
      type: 'error',
      code: 'ECONNREFUSED',
    });
  });
});

describe('runSlowClient', () => {
  const slowloris = SOAK_KINDS.find((k) => k.shape.type === 'slow-headers') as SoakKind;
  const slowBody = SOAK_KINDS.find((k) => k.shape.type === 'slow-body') as SoakKind;

  it('reads the status of a whole answer, and a close before one', async () => {
    let heads = '';
    const answering = createNetServer((socket) => {
      socket.once('data', (chunk) => {
        heads += chunk.toString('latin1');
        socket.end(
          'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
        );
      });
    });
    const closing = createNetServer((socket) => socket.once('data', () => socket.end()));
    const [answerUrl, closeUrl] = await Promise.all([listen(answering), listen(closing)]);
    try {
      expect(await runSlowClient(slowloris, answerUrl)).toEqual({ type: 'status', status: 408 });
      expect(await runSlowClient(slowBody, answerUrl)).toEqual({ type: 'status', status: 408 });
      expect(heads).toContain('GET /work HTTP/1.1\r\nHost: soak\r\nX-Slow: ');
      expect(heads).toContain('POST /upload HTTP/1.1\r\n');
      expect(heads).toContain('Content-Length: 100000\r\n\r\n');
      expect(await runSlowClient(slowloris, closeUrl)).toEqual({ type: 'closed' });
    } finally {
      await Promise.all([
        new Promise((resolve) => answering.close(resolve)),
        new Promise((resolve) => closing.close(resolve)),
      ]);
    }
  });

  it('refuses an ordinary kind', () => {
    expect(() => runSlowClient(base, 'http://127.0.0.1:1')).toThrow(/not a slow client/);
  });
});

describe('errorOutcome', () => {
  it('reads node’s errors as the report counts them', () => {
    const error = (message: string, code?: string) => Object.assign(new Error(message), { code });
    expect(errorOutcome(error('socket hang up', 'ECONNRESET'))).toMatchObject({ type: 'closed' });
    expect(errorOutcome(error('read ECONNRESET', 'ECONNRESET'))).toMatchObject({ type: 'reset' });
    expect(errorOutcome(error('write EPIPE', 'EPIPE'))).toMatchObject({ type: 'reset' });
    expect(errorOutcome(error('nope', 'EADDRNOTAVAIL'), '; new connection')).toEqual({
      type: 'error',
      code: 'EADDRNOTAVAIL',
      detail: 'nope; new connection',
    });
  });
});
