import { isIP } from 'node:net';

/**
 * Whether a host name or address stays on this machine: `localhost`, 127.0.0.0/8, ::1 (and the
 * IPv4-mapped ::ffff:127.x). `difftry ui` listens only on such a host unless told otherwise.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}
