import { describe, expect, it } from 'vitest';
import {
  authorityRefusal,
  hostFieldRefusal,
  hostRefusal,
} from '../../../src/policy/request/hostRefusal.js';

describe('hostRefusal (RFC 9112 §3.2)', () => {
  it.each([
    'shop.example',
    'shop.example:8080',
    'SHOP.Example:',
    'my_service.internal',
    '127.0.0.1',
    '127.0.0.1:80',
    '[::1]',
    '[::1]:8080',
    '[2001:db8::7]:443',
    '[::ffff:192.0.2.1]',
    '[v1.fe80::a+en1]',
    "a-b~c!$&'()*+,;=",
    '',
  ])('accepts one Host line %j', (value) => {
    expect(hostRefusal(1, value)).toBeUndefined();
  });

  it('accepts a request without Host (HTTP/1.0; node:http refuses HTTP/1.1 without one)', () => {
    expect(hostRefusal(0, undefined)).toBeUndefined();
  });

  it.each([2, 3])('refuses %i Host lines, whatever they hold', (lines) => {
    expect(hostRefusal(lines, 'shop.example')).toBe('more than one Host line (RFC 9112 §3.2)');
  });

  it.each([
    'a/b',
    'shop.example/admin',
    'user@shop.example',
    'shop?x',
    'shop#x',
    'a\\b',
    'a b',
    ' a',
    'a\tb',
    'a\r\nb',
    'shop:8o',
    'shop:80:81',
    'a%2Fb',
    '[::1',
    '[fe80::1%25eth0]',
    '[]',
    '[zz]',
    'café.example',
    'a"b',
    'a<b',
    '\u0000',
  ])('refuses the Host %j', (value) => {
    expect(hostRefusal(1, value)).toMatch(
      /^a Host that is not host\[:port\] \(RFC 9112 §3\.2\): "/,
    );
  });

  it('quotes a refused Host escaped and cut, so it can go in a log or error line', () => {
    expect(authorityRefusal('a\r\nb')).toBe(
      'a Host that is not host[:port] (RFC 9112 §3.2): "a\\r\\nb"',
    );
    expect(authorityRefusal(`/${'x'.repeat(300)}`)?.length).toBeLessThan(200);
  });
});

describe('hostFieldRefusal', () => {
  it.each([
    [['Host', 'a', 'X-A', '1'], undefined],
    [['X-A', '1'], undefined],
    [['Host', 'a', 'host', 'a'], 'more than one Host line (RFC 9112 §3.2)'],
    [['HOST', 'a', 'Hosts', 'b'], undefined],
    [['host', 'a/b'], 'a Host that is not host[:port] (RFC 9112 §3.2): "a/b"'],
  ] as const)('%j → %s', (raw, reason) => {
    expect(hostFieldRefusal(raw)).toBe(reason);
  });
});
