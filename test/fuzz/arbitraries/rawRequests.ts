import fc from 'fast-check';

// Raw HTTP/1.1 requests as an attacker writes them, byte by byte: targets with dot segments and
// escapes, every spelling of the class header, conflicting framings and bodies cut short. A
// client library would tidy most of these away; the sidecar's listeners see them as sent.

/** One header line as sent: its name and value, written `name: value` (or `raw` as it is). */
export interface RawHeader {
  readonly name: string;
  readonly value: string;
}

/** One request on a connection: its head and what follows it. */
export interface RawRequest {
  readonly method: string;
  readonly target: string;
  readonly version: string;
  readonly headers: readonly RawHeader[];
  /** The bytes after the head (a body, chunks, a second request smuggled in, or nothing). */
  readonly body: string;
  /**
   * `as-written`: the head as generated, framing headers and all; `content-length` and `chunked`:
   * a correct framing header for `body` is added (the well-formed requests most clients send).
   */
  readonly framing: 'as-written' | 'content-length' | 'chunked';
}

/** What a connection sends, and whether it then half-closes (else it goes quiet, left open). */
export interface RawConnection {
  readonly requests: readonly RawRequest[];
  readonly endAfterSending: boolean;
}

/** The API keys the fuzzed edge sidecar accepts (its `valueEnv`). */
export const EDGE_API_KEYS = ['k1', 'k2'] as const;
/** The mesh token of the fuzzed mesh sidecar, and the one peer it trusts. */
export const MESH_TOKEN = 'fuzz-token';
export const TRUSTED_PEER = 'search';

/** Segments the listener accepts: names the rules match, dot segments, unreserved escapes. */
const PLAIN_SEGMENTS = [
  'premium',
  'premium',
  'Premium',
  'premium2',
  'bulk',
  'bulk',
  'orders',
  'orders',
  'admin',
  'healthz',
  'x',
  'x',
  '',
  '.',
  '..',
  '..',
  '%2e',
  '%2E',
  '%2e%2e',
  '%2E%2e',
  '.%2e',
  '%2e.',
  '...',
  '%70remium',
  '%70%72emium',
  '%62ulk',
  '%7Euser',
  '~user',
  'a%20b',
  '%C3%A9',
  'a;b',
  '@',
  ':',
] as const;

/** Segments the listener must refuse with 400 (or that no two parsers read alike). */
const REFUSED_SEGMENTS = [
  '%2F',
  '%2f',
  '%5C',
  '\\',
  '%00',
  '%zz',
  '%',
  '%252e%252e',
  '%25%32%65',
  '..;',
  '.;x',
  'é',
  '#',
  '{',
] as const;

const segment = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...PLAIN_SEGMENTS) },
  { weight: 1, arbitrary: fc.constantFrom(...REFUSED_SEGMENTS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }).map((s) => s.replaceAll(/[\s\r\n]/g, '')) },
);

const query = fc.constantFrom(
  '',
  '',
  '',
  '',
  '?q=1',
  '?next=/premium/../admin',
  '?',
  '?a=%2F',
  '?#x',
);

/** A request target: origin-form mostly, sometimes absolute-form, asterisk or nonsense. */
export const targetArbitrary: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .tuple(fc.array(segment, { minLength: 1, maxLength: 5 }), query)
      .map(([segments, q]) => `/${segments.join('/')}${q}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          'http://anything',
          'HTTP://h:1',
          'https://h',
          'http://',
          'http://u@h',
          'ftp://h',
        ),
        fc.array(segment, { maxLength: 4 }),
        query,
      )
      .map(([origin, segments, q]) => `${origin}/${segments.join('/')}${q}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '*',
      'premium',
      '',
      '//premium/x',
      '/premium/x#f',
      '/healthz',
      '/metrics?x',
    ),
  },
);

const CLASS_HEADER_NAMES = [
  'x-priority',
  'X-Priority',
  'X-PRIORITY',
  'x_priority',
  'X_Priority',
  'x-priority-hint',
  'xpriority',
  'x-difftry-class',
  'priority',
] as const;

const classValue = fc.constantFrom(
  'high',
  'HIGH',
  ' high ',
  'mid',
  'low',
  'platinum',
  '',
  'high, low',
  'high\t',
);

/** Headers, the class header's variants and the sidecar's own first among them. */
export const headerArbitrary: fc.Arbitrary<RawHeader> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ name: fc.constantFrom(...CLASS_HEADER_NAMES), value: classValue }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      name: fc.constantFrom('x-difftry-peer', 'X-Difftry-Peer', 'x_difftry_peer'),
      value: fc.constantFrom(
        `${TRUSTED_PEER};${MESH_TOKEN}`,
        ` ${TRUSTED_PEER};${MESH_TOKEN} `,
        `${TRUSTED_PEER};wrong`,
        `geo;${MESH_TOKEN}`,
        `${TRUSTED_PEER.toUpperCase()};${MESH_TOKEN}`,
        `${TRUSTED_PEER};${MESH_TOKEN};x`,
        '',
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      name: fc.constantFrom('x-api-key', 'X-API-KEY', 'x_api_key'),
      value: fc.constantFrom('k1', 'k2', ' k1 ', 'k1,k2', 'k3', '', 'K1', 'k1 '),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      name: fc.constantFrom('connection', 'Connection'),
      value: fc.constantFrom(
        'close',
        'keep-alive',
        'close, x-priority',
        'x-api-key',
        'x-difftry-peer',
        'upgrade',
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      name: fc.constantFrom('transfer-encoding', 'Transfer-Encoding', 'transfer_encoding'),
      value: fc.constantFrom(
        'chunked',
        'gzip, chunked',
        'chunked, chunked',
        'identity',
        'CHUNKED',
        ' chunked',
        'x',
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      name: fc.constantFrom('content-length', 'Content-Length'),
      value: fc.constantFrom(
        '0',
        '1',
        '5',
        '10',
        '4097',
        '-1',
        '1, 1',
        '1, 2',
        'abc',
        '1e3',
        '+5',
        '99999999999',
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      name: fc.constantFrom('x-difftry-deadline-ms', 'expect', 'host', 'upgrade', 'te', 'x-other'),
      value: fc.constantFrom('0', '50', '-5', 'abc', '1e9', '100-continue', 'h2c', 'trailers', 'a'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      name: fc.constantFrom(
        'x priority',
        'x-priority ',
        '',
        ':',
        'x\u00e9',
        'x-a\r',
        ' x-priority',
      ),
      value: fc.constantFrom('high', 'a\rb', 'a\u0000b', 'é'),
    }),
  },
);

/** Methods any server knows, GET and POST weighted twice. */
const KNOWN_METHODS = ['GET', 'GET', 'POST', 'POST', 'PUT', 'HEAD', 'DELETE', 'OPTIONS', 'PATCH'];

const METHODS = [...KNOWN_METHODS, 'CONNECT', 'TRACE', 'get', 'FOO', 'G ET', ''] as const;

/** A body: exact, short or long of its declared length, chunks well or badly framed. */
const bodyArbitrary: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '5\r\nhello\r\n0\r\n\r\n',
      '5\r\nhel',
      '0\r\n\r\n',
      'zz\r\nx\r\n0\r\n\r\n',
      '5\r\nhello\r\n',
      '3;ext=1\r\nabc\r\n0\r\nx-priority: high\r\n\r\n',
      'ffffffffffffffff\r\n',
      '1\r\nx\n0\r\n\r\n',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'GET /premium/x HTTP/1.1\r\nHost: a\r\nx-priority: high\r\n\r\n',
      '0\r\n\r\nGET /premium HTTP/1.1\r\nHost: a\r\n\r\n',
      'x'.repeat(5000),
    ),
  },
);

/** Any request: every part drawn from the odd values above, most of them refused. */
const wildRequestArbitrary: fc.Arbitrary<RawRequest> = fc.record({
  method: fc.constantFrom(...METHODS),
  target: targetArbitrary,
  version: fc.constantFrom(
    'HTTP/1.1',
    'HTTP/1.1',
    'HTTP/1.1',
    'HTTP/1.0',
    'HTTP/2.0',
    'HTTP/1.1 x',
    'http/1.1',
  ),
  headers: fc
    .tuple(
      fc.constantFrom<RawHeader[]>(
        [{ name: 'Host', value: 'frontend' }],
        [{ name: 'Host', value: 'frontend' }],
        [],
      ),
      fc.array(headerArbitrary, { maxLength: 6 }),
    )
    .map(([host, rest]) => [...host, ...rest]),
  body: bodyArbitrary,
  framing: fc.constant('as-written' as const),
});

/** The headers that decide a class, spelled as they should be, with values good and bad. */
const classifyingHeaderArbitrary: fc.Arbitrary<RawHeader[]> = fc
  .record({
    priority: fc.option(
      fc.record({
        name: fc.oneof(fc.constant('x-priority'), fc.constantFrom(...CLASS_HEADER_NAMES)),
        value: fc.oneof(fc.constant('high'), classValue),
      }),
      { freq: 3 },
    ),
    peer: fc.option(
      fc.record({
        name: fc.constant('x-difftry-peer'),
        value: fc.constantFrom(
          `${TRUSTED_PEER};${MESH_TOKEN}`,
          `${TRUSTED_PEER};${MESH_TOKEN}`,
          `${TRUSTED_PEER};wrong`,
          `geo;${MESH_TOKEN}`,
        ),
      }),
    ),
    key: fc.option(
      fc.record({
        name: fc.constant('x-api-key'),
        value: fc.constantFrom('k1', 'k2', 'k3', '', 'k1,k2'),
      }),
    ),
    others: fc.array(headerArbitrary, { maxLength: 2 }),
  })
  .map(({ priority, peer, key, others }) =>
    [priority, peer, key, ...others].filter((header): header is RawHeader => header !== null),
  );

/** A request most servers would accept: a known method, HTTP/1.1, Host, a correct framing. */
const wellFormedRequestArbitrary: fc.Arbitrary<RawRequest> = fc.record({
  method: fc.constantFrom(...KNOWN_METHODS),
  target: targetArbitrary,
  version: fc.constant('HTTP/1.1'),
  headers: fc.tuple(classifyingHeaderArbitrary, fc.boolean()).map(([headers, hostFirst]) => {
    const host = { name: 'Host', value: 'frontend' };
    return hostFirst ? [host, ...headers] : [...headers, host];
  }),
  body: fc.oneof(fc.constant(''), fc.string({ maxLength: 12 })),
  framing: fc.constantFrom('content-length' as const, 'chunked' as const),
});

/** One raw request: well formed mostly (so that many reach the app), wild otherwise. */
export const rawRequestArbitrary: fc.Arbitrary<RawRequest> = fc.oneof(
  { weight: 3, arbitrary: wellFormedRequestArbitrary },
  { weight: 2, arbitrary: wildRequestArbitrary },
);

/** A connection: one request, or two pipelined; left open after, usually. */
export const rawConnectionArbitrary: fc.Arbitrary<RawConnection> = fc.record({
  requests: fc.array(rawRequestArbitrary, { minLength: 1, maxLength: 2 }),
  // A half-closed client gets no answer from node:http (it drops the response), but its request
  // still reaches the app: worth sending now and then, not mostly.
  endAfterSending: fc.oneof(
    { weight: 3, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
});

/** The bytes of `request`, with `id` in an `x-fuzz-id` header so the app's copy can be matched. */
export function requestBytes(request: RawRequest, id: string): string {
  const lines = [`${request.method} ${request.target} ${request.version}`];
  for (const header of request.headers) lines.push(`${header.name}: ${header.value}`);
  lines.push(`x-fuzz-id: ${id}`);
  let body = request.body;
  if (request.framing === 'content-length') {
    lines.push(`content-length: ${Buffer.byteLength(body)}`);
  } else if (request.framing === 'chunked') {
    lines.push('transfer-encoding: chunked');
    const size = Buffer.byteLength(body);
    body = size === 0 ? '0\r\n\r\n' : `${size.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  }
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
