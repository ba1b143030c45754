import { describe, expect, it } from 'vitest';
import {
  classifierReadsPath,
  type EdgeRequest,
  edgeClassifier,
  pathHasPrefix,
} from '../../src/mesh/edgeRules.js';

const request = (
  method: string,
  path: string,
  headers: Record<string, string> = {},
): EdgeRequest => ({ method, path, header: (name) => headers[name] });

describe('edgeClassifier', () => {
  const classify = edgeClassifier(
    [
      { path: '/reserve', class: 'high' },
      { header: 'X-Api-Key', values: ['k1', 'k2'], class: 'high' },
      { header: 'x-partner', class: 'mid' },
      { method: 'post', path: '/user/', class: 'mid' },
    ],
    'low',
  );

  it.each([
    ['GET', '/reserve', {}, 'high'],
    ['GET', '/reserve/42', {}, 'high'],
    ['GET', '/reserved', {}, 'low'],
    ['GET', '/search', { 'x-api-key': 'k2' }, 'high'],
    ['GET', '/search', { 'x-api-key': 'k3' }, 'low'],
    ['GET', '/search', { 'x-partner': '' }, 'mid'],
    ['POST', '/user/7', {}, 'mid'],
    ['GET', '/user/7', {}, 'low'],
    ['GET', '/', { 'x-priority': 'high' }, 'low'],
  ])('%s %s %j → %s', (method, path, headers, expected) => {
    expect(classify(request(method, path, headers))).toBe(expected);
  });

  it('takes the first rule that matches, in order', () => {
    const first = edgeClassifier([
      { path: '/a', class: 'low' },
      { path: '/a', class: 'high' },
    ]);
    expect(first(request('GET', '/a'))).toBe('low');
  });

  it('without a match and a fallback answers undefined (the policy then picks its default)', () => {
    expect(edgeClassifier([{ path: '/a', class: 'high' }])(request('GET', '/b'))).toBeUndefined();
  });

  it('a rule with path / matches every path', () => {
    expect(edgeClassifier([{ path: '/', class: 'high' }])(request('GET', '/x/y'))).toBe('high');
  });
});

describe('edgeClassifier: non-ASCII rule paths', () => {
  it('matches a rule written as text the way its requests arrive, as UTF-8 escapes', () => {
    const classify = edgeClassifier([{ path: '/café/', class: 'high' }], 'low');
    expect(classify(request('GET', '/caf%C3%A9/x'))).toBe('high');
    expect(classify(request('GET', '/cafe%CC%81/x'))).toBe('low');
    expect(
      edgeClassifier([{ path: '/caf%c3%a9', class: 'high' }])(request('GET', '/caf%C3%A9')),
    ).toBe('high');
  });
});

describe('classifierReadsPath', () => {
  it('is false only for rules without a path', () => {
    expect(classifierReadsPath(edgeClassifier([{ header: 'x-api-key', class: 'high' }]))).toBe(
      false,
    );
    expect(classifierReadsPath(edgeClassifier([{ method: 'POST', class: 'high' }]))).toBe(false);
    expect(classifierReadsPath(edgeClassifier([]))).toBe(false);
    expect(
      classifierReadsPath(
        edgeClassifier([
          { header: 'x-api-key', class: 'high' },
          { path: '/bulk', class: 'low' },
        ]),
      ),
    ).toBe(true);
    // Any other function may read the path.
    expect(classifierReadsPath(() => 'high')).toBe(true);
  });
});

describe('pathHasPrefix', () => {
  it.each([
    ['/search', '/search', true],
    ['/search/x', '/search', true],
    ['/search?q=1', '/search', true],
    ['/searchx', '/search', false],
    ['/sea', '/search', false],
    ['/anything', '', true],
  ])('%s has prefix %s: %s', (path, prefix, expected) => {
    expect(pathHasPrefix(path, prefix)).toBe(expected);
  });
});
