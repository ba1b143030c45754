import { isIP } from 'node:net';

/** Where `difftry ui` listens, as given by `--host`, checked. */
export interface ListenHost {
  /** What `server.listen` takes: an IPv6 literal without brackets, else as given (lower case). */
  readonly address: string;
  /** How a URL and a `Host` header write it: an IPv6 literal in brackets. */
  readonly urlHost: string;
}

/** A DNS name as RFC 1123 §2.1 writes one: labels of letters, digits and inner hyphens. */
const DNS_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/;

/**
 * Checks a `--host`: an IPv4 address, an IPv6 literal with or without brackets (`::1`, `[::1]`),
 * or a DNS name. An empty one is refused, not read as "every interface" (which `server.listen`
 * would make of it): listening everywhere must be asked for by name (`0.0.0.0` or `::`).
 * @returns the host, or the reason it is not one (one line)
 * @example
 * ```ts
 * listenHost('[::1]'); // { address: '::1', urlHost: '[::1]' }
 * listenHost('');      // { error: '--host: empty; …' }
 * ```
 */
export function listenHost(given: string): ListenHost | { readonly error: string } {
  const host = given.trim().toLowerCase();
  if (host === '') {
    return {
      error: '--host: empty; give an address or name (0.0.0.0 or :: to listen on every interface)',
    };
  }
  const bracketed = /^\[(.*)\]$/.exec(host);
  const bare = bracketed?.[1] ?? host;
  if (isIP(bare) === 6) return { address: bare, urlHost: `[${bare}]` };
  if (bracketed === null && (isIP(host) === 4 || DNS_NAME.test(host))) {
    return { address: host, urlHost: host };
  }
  return {
    error: `--host ${JSON.stringify(given)}: expected an IPv4 address, an IPv6 address (brackets optional) or a host name`,
  };
}
