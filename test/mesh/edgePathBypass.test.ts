import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SidecarHandle } from '../../src/mesh/index.js';
import { startInboundSidecar } from './inboundSidecar.js';
import { rawGet } from './rawExchange.js';

// Edge path rules must see the path the application serves. An edge sidecar
// sits in front of a node:http app (127.0.0.1, port 0) that echoes the target it received and the
// class header; every request is sent as raw bytes, since a client library would resolve the dot
// segments itself and hide the bypass.

const TEST_TIMEOUT_MS = 15_000;

interface Echo {
  readonly path: string;
  readonly className: string | undefined;
  readonly host: string | undefined;
}

const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** The application: answers 200 with what it received, as JSON; `seen` lists every target. */
async function echoApp(seen: string[]): Promise<string> {
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const echo: Echo = {
      path: req.url ?? '',
      className: req.headers['x-priority'] as string | undefined,
      host: req.headers.host,
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(echo));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

async function edgeSidecar(
  rules: readonly { path: string; class: string }[],
  fallback: string,
  seen: string[] = [],
): Promise<SidecarHandle> {
  const app = await echoApp(seen);
  const sidecar = await startInboundSidecar(app, {
    edge: { rules: [...rules], default: fallback },
  });
  closers.push(() => sidecar.close({ graceMs: 0 }));
  return sidecar;
}

async function served(url: string, target: string): Promise<Echo> {
  const answer = await rawGet(url, target);
  if (answer.status !== 200) {
    throw new Error(`GET ${target}: expected 200, got ${answer.status} ${answer.body}`);
  }
  return JSON.parse(answer.body) as Echo;
}

describe('edge path rules: what is classified is what is served', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it.each([
    ['/premium/x', 'high', '/premium/x'],
    ['/premium', 'high', '/premium'],
    ['/premium/x?next=/admin/../x', 'high', '/premium/x?next=/admin/../x'],
    ['/premium/../admin', 'low', '/admin'],
    ['/premium/%2e%2e/admin', 'low', '/admin'],
    ['/premium/%2E%2E/admin', 'low', '/admin'],
    ['/premium/./../admin', 'low', '/admin'],
    ['/premium/.%2e/admin', 'low', '/admin'],
    ['/admin/../premium/x', 'high', '/premium/x'],
    ['/%70remium/x', 'high', '/premium/x'],
    ['//premium/x', 'high', '/premium/x'],
    ['http://anything/premium/../admin', 'low', '/admin'],
    ['http://anything/premium/x?q=1', 'high', '/premium/x?q=1'],
  ])('promotion rule: GET %s is %s and serves %s', async (target, className, path) => {
    const sidecar = await edgeSidecar([{ path: '/premium', class: 'high' }], 'low');
    const echo = await served(sidecar.inboundUrl as string, target);
    expect({ target, className: echo.className, path: echo.path }).toStrictEqual({
      target,
      className,
      path,
    });
  });

  it.each([
    ['/bulk/x', 'low', '/bulk/x'],
    ['/./bulk/x', 'low', '/bulk/x'],
    ['/x/../bulk/x', 'low', '/bulk/x'],
    ['/%2e/bulk/x', 'low', '/bulk/x'],
    ['/x/%2E%2E/bulk/x', 'low', '/bulk/x'],
    ['/x//bulk/x', 'high', '/x/bulk/x'],
    ['http://anything/./bulk/x', 'low', '/bulk/x'],
    ['/other', 'high', '/other'],
  ])('demotion rule: GET %s is %s and serves %s', async (target, className, path) => {
    const sidecar = await edgeSidecar([{ path: '/bulk', class: 'low' }], 'high');
    const echo = await served(sidecar.inboundUrl as string, target);
    expect({ target, className: echo.className, path: echo.path }).toStrictEqual({
      target,
      className,
      path,
    });
  });

  it('matches a rule written with escapes as its requests arrive', async () => {
    const sidecar = await edgeSidecar([{ path: '/%7Euser/', class: 'high' }], 'low');
    for (const target of ['/~user/x', '/%7euser/x', '/%7Euser/./x']) {
      expect(await served(sidecar.inboundUrl as string, target)).toMatchObject({
        path: '/~user/x',
        className: 'high',
      });
    }
  });

  it('sends an absolute-form target on with its authority as Host', async () => {
    const sidecar = await edgeSidecar([{ path: '/premium', class: 'high' }], 'low');
    const echo = await served(sidecar.inboundUrl as string, 'http://shop.example/premium/x');
    expect(echo).toStrictEqual({ path: '/premium/x', className: 'high', host: 'shop.example' });
  });

  it.each([
    '/premium/..%2Fadmin',
    '/premium/..%2fadmin',
    '/premium/..%5Cadmin',
    '/premium/..\\admin',
    '/premium/%00/x',
    '/premium/%252e%252e/admin',
    '/premium/..;/admin',
    '/premium/%zz',
    'ftp://anything/premium/x',
  ])('answers 400 to the ambiguous GET %s, and the application sees nothing', async (target) => {
    const seen: string[] = [];
    const sidecar = await edgeSidecar([{ path: '/premium', class: 'high' }], 'low', seen);
    const answer = await rawGet(sidecar.inboundUrl as string, target);
    expect({ target, status: answer.status, seen }).toStrictEqual({
      target,
      status: 400,
      seen: [],
    });
    // The same sidecar still serves a plain request: one bad target costs nothing else.
    expect(await served(sidecar.inboundUrl as string, '/premium/x')).toMatchObject({
      path: '/premium/x',
      className: 'high',
    });
  });
});

describe('edge path rules: path parameters (";")', { timeout: TEST_TIMEOUT_MS }, () => {
  it.each([
    ['/bulk;v=1/x', '/bulk;v=1/x'],
    ['/bulk;jsessionid=9', '/bulk;jsessionid=9'],
    ['/x;/../bulk/y', '/bulk/y'],
  ])(
    'demotion rule: GET %s, which a servlet container reads as /bulk…, is refused or low',
    async (target, path) => {
      const seen: string[] = [];
      const sidecar = await edgeSidecar([{ path: '/bulk', class: 'low' }], 'high', seen);
      const answer = await rawGet(sidecar.inboundUrl as string, target);
      if (answer.status === 200) {
        // Both readings are /bulk…: low either way, so it may pass.
        expect(JSON.parse(answer.body)).toMatchObject({ path, className: 'low' });
      } else {
        expect({ target, status: answer.status, seen }).toStrictEqual({
          target,
          status: 400,
          seen: [],
        });
        expect(answer.body).toContain('path parameters');
      }
    },
  );

  it('refuses a promotion that only one reading would give', async () => {
    const seen: string[] = [];
    const sidecar = await edgeSidecar([{ path: '/premium', class: 'high' }], 'low', seen);
    const answer = await rawGet(sidecar.inboundUrl as string, '/premium;x/y');
    expect({ status: answer.status, seen }).toStrictEqual({ status: 400, seen: [] });
  });

  it('passes path parameters that leave the class alone, as received', async () => {
    const sidecar = await edgeSidecar([{ path: '/premium', class: 'high' }], 'low');
    for (const [target, className] of [
      ['/premium/cart;jsessionid=A1', 'high'],
      ['/shop;jsessionid=A1/cart', 'low'],
    ] as const) {
      expect(await served(sidecar.inboundUrl as string, target)).toMatchObject({
        path: target,
        className,
      });
    }
  });
});

describe('the sidecar’s own endpoints at the edge', { timeout: TEST_TIMEOUT_MS }, () => {
  it.each(['/x/../metrics', '/./metrics', '/%6detrics', '//metrics'])(
    'answers GET %s itself, as the application would have resolved it',
    async (target) => {
      const seen: string[] = [];
      const sidecar = await edgeSidecar([{ path: '/premium', class: 'high' }], 'low', seen);
      const answer = await rawGet(sidecar.inboundUrl as string, target);
      expect({ target, status: answer.status, seen }).toStrictEqual({
        target,
        status: 200,
        seen: [],
      });
      expect(answer.body).toContain('difftry_');
    },
  );

  it('answers GET /premium/../healthz itself', async () => {
    const seen: string[] = [];
    const sidecar = await edgeSidecar([{ path: '/premium', class: 'high' }], 'low', seen);
    const answer = await rawGet(sidecar.inboundUrl as string, '/premium/../healthz');
    expect({ status: answer.status, body: answer.body, seen }).toStrictEqual({
      status: 200,
      body: 'ok\n',
      seen: [],
    });
  });
});

// Non-ASCII tricks. Overlong UTF-8 (`%C0%AF` for "/", `%C0%AE` and `%E0%80%AE` for ".") is not
// UTF-8 at all (RFC 3629 §3), yet lenient decoders read it as the ASCII it spells; full-width and
// mathematical look-alikes (U+FF0E "．", U+FF0F "／", U+2215 "∕") become "." and "/" to an
// application that applies NFKC (or a best-fit code page) to its decoded path. Either way the
// application would serve /admin while the rule saw /premium/….
describe('edge path rules: non-ASCII look-alikes and invalid UTF-8', {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it.each([
    ['/premium/..%C0%AFadmin', 'UTF-8'],
    ['/premium/%C0%AE%C0%AE/admin', 'UTF-8'],
    ['/premium/%E0%80%AE%E0%80%AE/admin', 'UTF-8'],
    ['/premium/%ED%A0%80/x', 'UTF-8'],
    ['/premium/%F4%90%80%80/x', 'UTF-8'],
    ['/premium/%E2%88', 'UTF-8'],
    ['/premium/%EF%BC%8E%EF%BC%8E%EF%BC%8Fadmin', 'look-alike'],
    ['/premium/..%E2%88%95admin', 'look-alike'],
    ['/premium/%EF%BC%8E%EF%BC%8E/admin', 'look-alike'],
    ['/premium/%E2%80%A5/admin', 'look-alike'],
    ['/premium/..%EF%BC%BCadmin', 'look-alike'],
  ])('answers 400 to GET %s (%s), and the application sees nothing', async (target, reason) => {
    const seen: string[] = [];
    const sidecar = await edgeSidecar([{ path: '/premium', class: 'high' }], 'low', seen);
    const answer = await rawGet(sidecar.inboundUrl as string, target);
    expect({ target, status: answer.status, seen }).toStrictEqual({
      target,
      status: 400,
      seen: [],
    });
    expect(answer.body).toContain(reason);
    expect(await served(sidecar.inboundUrl as string, '/premium/x')).toMatchObject({
      path: '/premium/x',
      className: 'high',
    });
  });

  it.each([
    ['/caf%C3%A9', 'low', '/caf%C3%A9'],
    ['/caf%c3%a9/x', 'low', '/caf%C3%A9/x'],
    ['/premium/caf%C3%A9', 'high', '/premium/caf%C3%A9'],
    // Decomposed (e + U+0301): NFKC composes it to é, which changes no ASCII, so it passes.
    ['/premium/cafe%CC%81', 'high', '/premium/cafe%CC%81'],
    ['/premium/%E6%97%A5%E6%9C%AC', 'high', '/premium/%E6%97%A5%E6%9C%AC'],
  ])('serves the valid non-ASCII GET %s as %s, path %s', async (target, className, path) => {
    const sidecar = await edgeSidecar([{ path: '/premium', class: 'high' }], 'low');
    const echo = await served(sidecar.inboundUrl as string, target);
    expect({ target, className: echo.className, path: echo.path }).toStrictEqual({
      target,
      className,
      path,
    });
  });

  it('never sees raw UTF-8 bytes in a target: node:http answers 400 itself', async () => {
    // Node 20's parser refuses bytes above 0x7F in the request line (insecureHTTPParser too),
    // so a raw "/café" never reaches the normaliser; should a Node release let them through,
    // this fails and the normaliser must take them as the bytes they are.
    const seen: string[] = [];
    const sidecar = await edgeSidecar([{ path: '/premium', class: 'high' }], 'low', seen);
    const answer = await rawGet(sidecar.inboundUrl as string, '/café');
    expect({ status: answer.status, seen }).toStrictEqual({ status: 400, seen: [] });
  });

  it('on a listener whose rules ignore the path, passes look-alikes but not invalid UTF-8', async () => {
    const seen: string[] = [];
    const app = await echoApp(seen);
    const sidecar = await startInboundSidecar(app, {
      edge: { rules: [{ header: 'x-api-key', value: 'k1', class: 'high' }], default: 'low' },
    });
    closers.push(() => sidecar.close({ graceMs: 0 }));
    const url = sidecar.inboundUrl as string;
    const lookAlike = '/premium/%EF%BC%8E%EF%BC%8E%EF%BC%8Fadmin';
    expect(await served(url, lookAlike)).toMatchObject({ path: lookAlike, className: 'low' });
    const overlong = await rawGet(url, '/premium/..%C0%AFadmin');
    expect({ status: overlong.status, seen }).toStrictEqual({ status: 400, seen: [lookAlike] });
  });

  it('matches a rule written in non-ASCII text, and refuses a reading that NFKC classes apart', async () => {
    const seen: string[] = [];
    const sidecar = await edgeSidecar([{ path: '/café', class: 'low' }], 'high', seen);
    const url = sidecar.inboundUrl as string;
    expect(await served(url, '/caf%C3%A9/x')).toMatchObject({
      path: '/caf%C3%A9/x',
      className: 'low',
    });
    seen.length = 0;
    // e + U+0301: not /café to the rule, but /café to an application that normalises.
    const decomposed = await rawGet(url, '/cafe%CC%81/x');
    expect({ status: decomposed.status, seen }).toStrictEqual({ status: 400, seen: [] });
    expect(decomposed.body).toContain('NFKC');
  });
});
