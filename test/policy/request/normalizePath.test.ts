import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
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
  ])('refuses %j (%s)', (target, reason) => {
    const result = normalizeRequestPath(target);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toContain(reason);
  });

  it('is idempotent: a normalised path normalises to itself', () => {
    for (const target of ['/a/./b/../%7e%2E%2e/c', '//x//y/', '/caf%c3%a9', '/%41/..']) {
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
