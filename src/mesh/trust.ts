import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The value of the identity header a sidecar adds to every call it forwards:
 * `NAME;TOKEN`, its service name and the mesh token.
 */
export function peerHeaderValue(service: string, token: string): string {
  return `${service};${token}`;
}

/**
 * The check an inbound listener makes of the identity header (`x-difftry-peer: NAME;TOKEN`): the
 * caller is a trusted peer when the token is the mesh token and NAME is one of `peers`. Returns
 * the peer's name, or undefined for anyone else (a missing, malformed or wrong header).
 *
 * The token is a secret shared by the sidecars of one mesh, so it proves that the caller belongs
 * to the mesh, not which member it is: a sidecar holding it could claim another's name. Per-peer
 * proof needs mutual TLS, which a service mesh (Istio, Linkerd) provides below this layer.
 * Tokens are compared in constant time (through their SHA-256 digests, equal in length).
 * @example
 * ```ts
 * const check = peerCheck({ peers: ['search'], token: 's3cret' });
 * check('search;s3cret'); // 'search'
 * check('user;s3cret'); // undefined: not a listed peer
 * ```
 */
export function peerCheck(options: {
  readonly peers: readonly string[];
  readonly token: string;
}): (value: string | undefined) => string | undefined {
  const peers = new Set(options.peers);
  const expected = digest(options.token);
  if (peers.size === 0) return () => undefined;
  return (value) => {
    if (value === undefined) return undefined;
    const split = value.indexOf(';');
    if (split <= 0) return undefined;
    const name = value.slice(0, split);
    if (!peers.has(name)) return undefined;
    return timingSafeEqual(digest(value.slice(split + 1)), expected) ? name : undefined;
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
