import { describe, expect, it } from 'vitest';
import { peerCheck, peerHeaderValue } from '../../src/mesh/trust.js';

describe('peerCheck', () => {
  const check = peerCheck({ peers: ['search', 'geo'], token: 'mesh-token' });

  it('trusts a listed peer with the mesh token', () => {
    expect(check(peerHeaderValue('search', 'mesh-token'))).toBe('search');
    expect(check('geo;mesh-token')).toBe('geo');
  });

  it.each([
    ['a missing header', undefined],
    ['an empty header', ''],
    ['no token', 'search'],
    ['an empty name', ';mesh-token'],
    ['the wrong token', 'search;other'],
    ['a token prefix', 'search;mesh'],
    ['a peer not listed', 'user;mesh-token'],
    ['a name in another case', 'Search;mesh-token'],
  ])('refuses %s', (_what, value) => {
    expect(check(value)).toBeUndefined();
  });

  it('keeps a token that contains the separator whole', () => {
    const semicolons = peerCheck({ peers: ['a'], token: 'x;y' });
    expect(semicolons('a;x;y')).toBe('a');
    expect(semicolons('a;x')).toBeUndefined();
  });

  it('trusts nobody without peers', () => {
    expect(peerCheck({ peers: [], token: 't' })('a;t')).toBeUndefined();
  });
});
