import { isIP } from 'node:net';

/**
 * Whether an IP address is this machine's own: 127.0.0.0/8, ::1, or an IPv4-mapped 127.x
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`). It judges the address a server is bound to (which the
 * system resolved `localhost` or `127.1` to), never a spelling; a name that is not an address
 * is not loopback here.
 * @example
 * ```ts
 * isLoopbackAddress('127.0.0.1'); // true
 * isLoopbackAddress('0.0.0.0');   // false
 * ```
 */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) !== 6) return false;
  if (bare === '::1' || /^(?:0{1,4}:){7}0{0,3}1$/.test(bare)) return true;
  const mapped = /^::ffff:(.+)$/.exec(bare)?.[1];
  if (mapped === undefined) return false;
  if (isIP(mapped) === 4) return mapped.startsWith('127.');
  // ::ffff:7f00:1, the same address in hexadecimal: its first byte is 0x7f.
  const high = /^([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(mapped)?.[1];
  return high !== undefined && Number.parseInt(high, 16) >> 8 === 0x7f;
}
