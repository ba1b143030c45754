import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  absoluteFormAuthority,
  nfkcReading,
  normalizeRequestPath,
  removeDotSegments,
} from '../../../src/policy/request/normalizePath.js';

// RFC 3986 §5.4: references resolved against the base URI "http://a/b/c/d;p?q". A relative path
// reference is merged with the base path up to its last "/" (§5.2.3) and then has its dot segments
// removed (§5.2.4); the expected paths below are the RFC's own results, their scheme and authority
// dropped. Network-path, query-only and fragment references do not apply to a request path.
const BASE_DIRECTORY = '/b/c/';
const rfc3986Examples: readonly (readonly [reference: string, resolvedPath: string])[] = [
  // §5.4.1 normal examples
  ['g', '/b/c/g'],
  ['./g', '/b/c/g'],
  ['g/', '/b/c/g/'],
  ['/g', '/g'],
  [';x', '/b/c/;x'],
  ['g;x', '/b/c/g;x'],
  ['.', '/b/c/'],
  ['./', '/b/c/'],
  ['..', '/b/'],
  ['../', '/b/'],
  ['../g', '/b/g'],
  ['../..', '/'],
  ['../../', '/'],
  ['../../g', '/g'],
  // §5.4.2 abnormal examples
  ['../../../g', '/g'],
  ['../../../../g', '/g'],
  ['/./g', '/g'],
  ['/../g', '/g'],
  ['g.', '/b/c/g.'],
  ['.g', '/b/c/.g'],
  ['g..', '/b/c/g..'],
  ['..g', '/b/c/..g'],
  ['./../g', '/b/g'],
  ['./g/.', '/b/c/g/'],
  ['g/./h', '/b/c/g/h'],
  ['g/../h', '/b/c/h'],
  ['g;x=1/./y', '/b/c/g;x=1/y'],
  ['g;x=1/../y', '/b/c/y'],
];

function merged(reference: string): string {
  return reference.startsWith('/') ? reference : BASE_DIRECTORY + reference;
}

describe('removeDotSegments (RFC 3986 §5.2.4)', () => {
  it.each(rfc3986Examples)('%s against /b/c/d;p → %s (§5.4)', (reference, resolvedPath) => {
    expect(removeDotSegments(merged(reference))).toBe(resolvedPath);
  });

  it.each([
    ['/a/b/c/./../../g', '/a/g'],
    ['mid/content=5/../6', 'mid/6'],
  ])('%s → %s (the §5.2.4 walk-throughs)', (input, output) => {
    expect(removeDotSegments(input)).toBe(output);
  });
});

describe('normalizeRequestPath', () => {
  it.each(rfc3986Examples)('%s against /b/c/d;p → %s (§5.4)', (reference, resolvedPath) => {
    expect(normalizeRequestPath(`${merged(reference)}?q`)).toStrictEqual({
      ok: true,
      path: resolvedPath,
      query: '?q',
      authority: undefined,
    });
  });

  it.each([
    // Unreserved escapes decoded, in any case (§6.2.2.2); the others kept, hex upper-cased (§6.2.2.1).
    ['/%7Euser/%41%62%2d%5f', '/~user/Ab-_'],
    ['/premium/%2e%2e/admin', '/admin'],
    ['/premium/%2E%2E/admin', '/admin'],
    ['/premium/.%2E/admin', '/admin'],
    ['/%2e/bulk/x', '/bulk/x'],
    ['/caf%c3%a9/%3b/%20', '/caf%C3%A9/%3B/%20'],
    ['/a/%25/b', '/a/%25/b'],
    // Repeated slashes merged before dot segments are removed.
    ['//premium/x', '/premium/x'],
    ['/x//bulk///x/', '/x/bulk/x/'],
    ['/a//../b', '/b'],
    // Above the root stays at the root.
    ['/..', '/'],
    ['/../../x', '/x'],
    ['/', '/'],
  ])('%s → %s', (target, path) => {
    expect(normalizeRequestPath(target)).toStrictEqual({
      ok: true,
      path,
      query: '',
      authority: undefined,
    });
  });

  it('keeps the query exactly as received', () => {
    expect(normalizeRequestPath('/p/../q?a=/../%2f%2e&b=\\#')).toStrictEqual({
      ok: true,
      path: '/q',
      query: '?a=/../%2f%2e&b=\\#',
      authority: undefined,
    });
  });

  it.each([
    ['http://anything/premium/../admin', '/admin', '', 'anything'],
    ['HTTPS://shop.example:8443/a/./b?x=1', '/a/b', '?x=1', 'shop.example:8443'],
    ['http://anything', '/', '', 'anything'],
    ['http://anything?x', '/', '?x', 'anything'],
  ])('absolute form %s → path %s, query %j, authority %s', (target, path, query, authority) => {
    expect(normalizeRequestPath(target)).toStrictEqual({ ok: true, path, query, authority });
  });

  it.each([
    ['/premium/..%2Fadmin', 'encoded "/"'],
    ['/premium/..%2fadmin', 'encoded "/"'],
    ['/premium/..%5Cadmin', 'encoded "\\"'],
    ['/premium/..%5cadmin', 'encoded "\\"'],
    ['/premium/..\\admin', '"\\" in the path'],
    ['/premium/%00', 'NUL'],
    ['/premium/\0', 'NUL'],
    ['/premium/%2', 'malformed percent-escape'],
    ['/premium/%zz', 'malformed percent-escape'],
    ['/premium/%252e%252e/admin', 'decodes further'],
    ['/premium/%252E/admin', 'decodes further'],
    ['/premium/%252F', 'decodes further'],
    ['/premium/%255C', 'decodes further'],
    ['/premium/%2e%2e%3b/admin', 'decodes further'],
    ['/premium/..;/admin', 'dot segment with parameters'],
    ['/premium/.;x/admin', 'dot segment with parameters'],
    ['/premium/a#/../../admin', 'not allowed'],
    ['/premium/ x', 'not allowed'],
    ['/premium/é', 'not allowed'],
    ['*', 'neither a path nor'],
    ['premium/x', 'neither a path nor'],
    ['ftp://anything/premium/x', 'neither a path nor'],
    ['http:///premium', 'without a plain host'],
    ['http://user@anything/premium', 'without a plain host'],
    ['http://a%2Fb/premium', 'without a plain host'],
    ['http://shop:8o/premium', 'without a plain host'],
    // Escapes that are not UTF-8 (RFC 3629): refused with or without path rules.
    ['/premium/..%C0%AFadmin', 'invalid UTF-8 in the path: an overlong encoding (%C0%AF)'],
    ['/premium/%C0%AE%C0%AE/admin', 'invalid UTF-8 in the path: an overlong encoding (%C0%AE)'],
    ['/premium/%E0%80%AE%E0%80%AE/admin', 'invalid UTF-8 in the path: an overlong encoding'],
    ['/premium/%ED%A0%80', 'invalid UTF-8 in the path: a UTF-16 surrogate'],
    ['/premium/%F4%90%80%80', 'invalid UTF-8 in the path: a code point above U+10FFFF'],
    ['/premium/%E2%88', 'invalid UTF-8 in the path: a sequence cut short'],
    ['/premium/%C3x', 'invalid UTF-8 in the path: a sequence cut short'],
    ['/premium/%FF', 'invalid UTF-8 in the path'],
    ['/premium/%25C0%25AF', 'decodes further into invalid UTF-8'],
    // Look-alikes of ASCII, once decoded (refuseLookAlikes is on by default).
    ['/premium/%EF%BC%8E%EF%BC%8E%EF%BC%8Fadmin', 'a look-alike of "." in the path (U+FF0E'],
    ['/premium/..%E2%88%95admin', 'a look-alike of "/" in the path (U+2215, by a confusable'],
    ['/premium/..%EF%BC%8Fadmin', 'a look-alike of "/" in the path (U+FF0F, by its NFKC form)'],
    ['/premium/%E2%80%A5/admin', 'a look-alike of ".." in the path (U+2025'],
    ['/premium/..%EF%BC%BCadmin', 'a look-alike of "\\\\" in the path (U+FF3C'],
    ['/premium/%E2%81%84', 'a look-alike of "/" in the path (U+2044'],
    ['/premium/%E3%80%82%E3%80%82/admin', 'a look-alike of "." in the path (U+3002'],
    ['/%EF%BD%90remium/x', 'a look-alike of "p" in the path (U+FF50'],
    ['/premium/%25EF%25BC%258F', 'a look-alike of "/" in the path (U+FF0F'],
  ])('refuses %j (%s)', (target, reason) => {
    const result = normalizeRequestPath(target);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toContain(reason);
  });

  it.each([
    ['/caf%C3%A9', '/caf%C3%A9'],
    ['/caf%c3%a9/x', '/caf%C3%A9/x'],
    ['/premium/cafe%CC%81', '/premium/cafe%CC%81'],
    ['/%E6%97%A5%E6%9C%AC/%F0%9F%98%80', '/%E6%97%A5%E6%9C%AC/%F0%9F%98%80'],
    ['/%CE%A9', '/%CE%A9'],
  ])('passes the valid non-ASCII path %s as %s', (target, path) => {
    expect(normalizeRequestPath(target)).toStrictEqual({
      ok: true,
      path,
      query: '',
      authority: undefined,
    });
  });

  it('with refuseLookAlikes: false, passes look-alikes as received but never invalid UTF-8', () => {
    const keep = { refuseLookAlikes: false };
    for (const target of [
      '/premium/%EF%BC%8E%EF%BC%8E%EF%BC%8Fadmin',
      '/premium/..%E2%88%95admin',
    ]) {
      expect(normalizeRequestPath(target, keep)).toStrictEqual({
        ok: true,
        path: target,
        query: '',
        authority: undefined,
      });
    }
    const overlong = normalizeRequestPath('/premium/..%C0%AFadmin', keep);
    expect(overlong.ok ? '' : overlong.reason).toContain('invalid UTF-8');
  });

  it('is idempotent: a normalised path normalises to itself', () => {
    for (const target of [
      '/a/./b/../%7e%2E%2e/c',
      '//x//y/',
      '/caf%c3%a9',
      '/%41/..',
      '/e%cc%81',
    ]) {
      const once = normalizeRequestPath(target);
      if (!once.ok) throw new Error(`${target}: ${once.reason}`);
      expect({ target, again: normalizeRequestPath(once.path) }).toStrictEqual({
        target,
        again: once,
      });
    }
  });
});

describe('normalizeRequestPath: laws (fast-check)', () => {
  // Targets built from the pieces the bypasses use, so that dots, escapes and slashes meet often.
  const piece = fc.constantFrom(
    '/',
    '//',
    '.',
    '..',
    '%2e',
    '%2E',
    '%2f',
    '%5c',
    '%25',
    '%41',
    '%c3',
    ';',
    '\\',
    'a',
    'premium',
    '~',
    '?',
    '%',
    '#',
  );
  const target = fc.array(piece, { maxLength: 12 }).map((pieces) => `/${pieces.join('')}`);

  it('a path it accepts has no dot segment, no empty segment inside, and is its own normal form', () => {
    fc.assert(
      fc.property(target, (raw) => {
        const once = normalizeRequestPath(raw);
        if (!once.ok) return;
        const segments = once.path.split('/').slice(1);
        expect(once.path.startsWith('/')).toBe(true);
        expect(segments.some((s) => s === '.' || s === '..')).toBe(false);
        expect(segments.slice(0, -1).includes('')).toBe(false);
        expect(normalizeRequestPath(once.path)).toStrictEqual({ ...once, query: '' });
      }),
      { seed: 13, numRuns: 2000 },
    );
  });

  it('agrees with the WHATWG URL parser on every path it accepts', () => {
    // The parser most Node applications resolve req.url with: it must find the same path.
    fc.assert(
      fc.property(target, (raw) => {
        const once = normalizeRequestPath(raw);
        if (!once.ok) return;
        expect(new URL(once.path, 'http://app.invalid').pathname).toBe(once.path);
      }),
      { seed: 13, numRuns: 2000 },
    );
  });
});

describe('nfkcReading', () => {
  it.each([
    ['/premium/cafe%CC%81', '/premium/caf%C3%A9'],
    ['/cafe%CC%81/x/cafe%CC%81', '/caf%C3%A9/x/caf%C3%A9'],
    // A segment NFKC changes is written back whole: its escaped ";" comes back as ";".
    ['/a%3Be%CC%81', '/a;%C3%A9'],
    ['/e%CC%81%20', '/%C3%A9%20'],
  ])('%s reads as %s', (path, reading) => {
    expect(nfkcReading(path)).toBe(reading);
  });

  it.each(['/premium/x', '/caf%C3%A9', '/%E6%97%A5', '/a%3Bb'])('%s reads as itself', (path) => {
    expect(nfkcReading(path)).toBeUndefined();
  });
});

describe('absoluteFormAuthority', () => {
  it.each([
    ['http://shop:80/x', 'shop:80'],
    ['HTTPS://a%2Fb', 'a%2Fb'],
    ['http:///x', ''],
    ['/x', undefined],
    ['*', undefined],
    ['ftp://shop/x', undefined],
  ])('%s → %j', (target, authority) => {
    expect(absoluteFormAuthority(target)).toBe(authority);
  });
});

describe('normalizeRequestPath: non-ASCII laws (fast-check)', () => {
  // Look-alikes of ".", "/" and "\\" (NFKC's and the confusables'), valid non-ASCII text, and
  // escapes that are not UTF-8, mixed with the ASCII pieces of a traversal.
  const utf8 = (text: string) =>
    [...new TextEncoder().encode(text)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
  const lookAlikes = [
    '\uff0e', // FULLWIDTH FULL STOP
    '\uff0f', // FULLWIDTH SOLIDUS
    '\u2215', // DIVISION SLASH
    '\u2044', // FRACTION SLASH
    '\ufe52', // SMALL FULL STOP
    '\u2024', // ONE DOT LEADER
    '\u2025', // TWO DOT LEADER
    '\uff3c', // FULLWIDTH REVERSE SOLIDUS
    '\ufe68', // SMALL REVERSE SOLIDUS
    '\u3002', // IDEOGRAPHIC FULL STOP
    '\uff61', // HALFWIDTH IDEOGRAPHIC FULL STOP
    '\uff50', // FULLWIDTH LATIN SMALL LETTER P
  ].map(utf8);
  const valid = ['\u00e9', '\u0301', '\u65e5', '\u{1f600}', '\u03a9'].map(utf8);
  const invalid = ['%C0%AF', '%C0%AE', '%E0%80%AE', '%ED%A0%80', '%F4%90%80%80', '%E2%88', '%C3'];
  const ascii = ['/', '.', '..', 'a', 'e', 'premium', '%2e', '%3B'];
  const target = (pieces: readonly string[]) =>
    fc.array(fc.constantFrom(...pieces), { maxLength: 10 }).map((list) => `/${list.join('')}`);

  /** The rules' classes: the first of these prefixes a path has on a segment boundary. */
  const RULES = ['/premium/a', '/premium', '/a/premium', '/a', '/e'];
  const classOf = (path: string) =>
    RULES.find((prefix) => path === prefix || path.startsWith(`${prefix}/`)) ?? 'default';

  /** An application's reading: the path decoded, NFKC applied, and the confusables folded. */
  const CONFUSABLE: Readonly<Record<string, string>> = {
    '\u2215': '/',
    '\u2044': '/',
    '\u3002': '.',
  };
  const applicationReading = (path: string) =>
    [...decodeURIComponent(path).normalize('NFKC')].map((c) => CONFUSABLE[c] ?? c).join('');

  it('refuses every target holding an escape that is not UTF-8, with or without path rules', () => {
    fc.assert(
      fc.property(
        target([...ascii, ...valid, ...lookAlikes]),
        fc.constantFrom(...invalid),
        target([...ascii, ...valid]),
        fc.boolean(),
        (before, bad, after, refuseLookAlikes) => {
          const raw = `${before}${bad}${after}`;
          const result = normalizeRequestPath(raw, { refuseLookAlikes });
          expect({ raw, ok: result.ok }).toStrictEqual({ raw, ok: false });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses every look-alike; what it accepts an NFKC-reading application classes the same', () => {
    fc.assert(
      fc.property(target([...ascii, ...valid, ...lookAlikes]), (raw) => {
        const once = normalizeRequestPath(raw);
        const holdsLookAlike = lookAlikes.some((piece) => raw.includes(piece));
        if (holdsLookAlike) {
          expect({ raw, ok: once.ok }).toStrictEqual({ raw, ok: false });
          return;
        }
        if (!once.ok) return;
        // The application decodes, applies NFKC and folds look-alikes, then resolves dot segments.
        const read = normalizeRequestPath(encodeURI(applicationReading(once.path)));
        expect({ raw, ok: read.ok }).toStrictEqual({ raw, ok: true });
        if (!read.ok) return;
        expect({ raw, class: classOf(read.path) }).toStrictEqual({
          raw,
          class: classOf(once.path),
        });
        expect({ raw, segments: read.path.split('/').length }).toStrictEqual({
          raw,
          segments: once.path.split('/').length,
        });
      }),
      { numRuns: 3000 },
    );
  });
});
