import { describe, expect, it } from 'vitest';
import { isAdminPath } from '../../src/mesh/adminEndpoints.js';
import { upstreamRouter } from '../../src/mesh/upstreamRouting.js';

const upstreams = [
  { name: 'search', url: 'http://127.0.0.1:9001' },
  { name: 'geo', url: 'http://127.0.0.1:9002/api/', hosts: ['geo.internal'] },
  { name: 'user', url: 'http://127.0.0.1:9003', prefix: '/users/v1/' },
  { name: 'users-v2', url: 'http://127.0.0.1:9004', prefix: '/users' },
];
const route = upstreamRouter(upstreams);
const where = (host: string | undefined, target: string) => {
  const found = route(host, target);
  return found && `${found.upstream.name} ${found.path}`;
};

describe('upstreamRouter', () => {
  it.each([
    ['127.0.0.1:15001', '/search/find?q=1', 'search /find?q=1'],
    ['127.0.0.1:15001', '/search', 'search /'],
    ['127.0.0.1:15001', '/search?q=1', 'search /?q=1'],
    ['127.0.0.1:15001', '/search/', 'search /'],
    ['127.0.0.1:15001', '/searching', undefined],
    ['127.0.0.1:15001', '/geo/near', 'geo /api/near'],
    ['127.0.0.1:15001', '/users/v1/7', 'user /7'],
    ['127.0.0.1:15001', '/users/7', 'users-v2 /7'],
    [undefined, '/nothing', undefined],
  ])('host %s, %s → %s', (host, target, expected) => {
    expect(where(host, target)).toBe(expected);
  });

  it.each([
    ['search', '/find', 'search /find'],
    ['SEARCH:8080', '/search/find', 'search /search/find'],
    ['geo.internal', '/near', 'geo /api/near'],
    ['geo', '/', 'geo /api/'],
  ])('routes by Host first, keeping the path: %s %s → %s', (host, target, expected) => {
    expect(where(host, target)).toBe(expected);
  });

  it('routes an absolute-form target (a client using it as an HTTP proxy) by its host', () => {
    expect(where('ignored', 'http://search/find?q=1')).toBe('search /find?q=1');
    expect(where(undefined, 'http://nowhere/x')).toBeUndefined();
    expect(where(undefined, '*')).toBeUndefined();
  });

  it('a prefix / catches what no other prefix takes', () => {
    const catchAll = upstreamRouter([
      { name: 'a', url: 'http://127.0.0.1:1', prefix: '/' },
      { name: 'b', url: 'http://127.0.0.1:2' },
    ]);
    expect(catchAll(undefined, '/b/x')?.upstream.name).toBe('b');
    expect(catchAll(undefined, '/x?y')).toMatchObject({
      upstream: { name: 'a' },
      path: '/x?y',
      by: 'prefix',
    });
    expect(catchAll('b', '/x')).toMatchObject({ upstream: { name: 'b' }, by: 'host' });
  });
});

describe('isAdminPath', () => {
  it.each([
    ['/metrics', true],
    ['/metrics?name[]=x', true],
    ['/healthz', true],
    ['/metricsx', false],
    ['/metrics/', false],
    ['/health', false],
    ['/search/metrics', false],
  ])('%s: %s', (target, expected) => {
    expect(isAdminPath(target)).toBe(expected);
  });
});
