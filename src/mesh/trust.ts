import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The value of the identity header a sidecar adds to every call it forwards:
 * `NAME;TOKEN`, its service name and the mesh token.
 */
export function peerHeaderValue(service: string, token: string): string {
  return `${service};${token}`;
}

/** Options of {@link peerCheck}. */
export interface PeerCheckOptions {
  /** Services whose class header is believed (names compared exactly, case included). */
  readonly peers: readonly string[];
  /** The mesh token. */
  readonly token: string;
  /**
   * Compares two SHA-256 digests (32 bytes each); default `crypto.timingSafeEqual`. Injected by
   * tests to count the comparisons; any replacement must itself take constant time.
   * @default crypto.timingSafeEqual
   */
  readonly equal?: (presented: Buffer, expected: Buffer) => boolean;
}

/**
 * The check an inbound listener makes of the identity header (`x-difftry-peer: NAME;TOKEN`): the
 * caller is a trusted peer when the token is the mesh token and NAME is one of `peers`. Returns
 * the peer's name, or undefined for anyone else (a missing, malformed or wrong header).
 *
 * The token is a secret shared by the sidecars of one mesh, so it proves that the caller belongs
 * to the mesh, not which member it is: a sidecar holding it could claim another's name. Per-peer
 * proof needs mutual TLS, which a service mesh (Istio, Linkerd) provides below this layer.
 *
 * The whole header is compared in constant time, and so is the list: the SHA-256 digest of the
 * presented value is compared (`timingSafeEqual`, digests equal in length) with the digest of
 * `PEER;TOKEN` for every listed peer, with no early exit, so the time taken tells neither the
 * token nor which names are trusted — a listed name with a wrong token, an unlisted name and a
 * malformed header cost the same one digest and one comparison per peer.
 * @example
 * ```ts
 * const check = peerCheck({ peers: ['search'], token: 's3cret' });
 * check('search;s3cret'); // 'search'
 * check('user;s3cret'); // undefined: not a listed peer
 * ```
 */
export function peerCheck(
  options: PeerCheckOptions,
): (value: string | undefined) => string | undefined {
  const equal = options.equal ?? timingSafeEqual;
  const peers = [...new Set(options.peers)];
  const expected = peers.map((peer) => digest(peerHeaderValue(peer, options.token)));
  if (peers.length === 0) return () => undefined;
  return (value) => {
    // An absent header says nothing about the list: there is no name to probe with.
    if (value === undefined) return undefined;
    const presented = digest(value);
    let trusted: string | undefined;
    for (let i = 0; i < peers.length; i++) {
      // No early exit and no short-circuit: every peer costs one comparison, match or not.
      const match = equal(presented, expected[i] as Buffer);
      if (match) trusted = peers[i];
    }
    return trusted;
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
