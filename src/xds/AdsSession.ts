/**
 * One client's Aggregated Discovery Service stream (state of the world, xDS v3), as decisions:
 * what to answer each DiscoveryRequest with, and what to push when the resources change. No I/O:
 * the server feeds it requests and snapshots and sends what it returns.
 *
 * Per resource type the session keeps what the client subscribed to, the nonce and version of the
 * last response, and the version the client last accepted:
 * - a request whose `response_nonce` is not the last one sent for its type is stale (it answers
 *   an older response) and is ignored, as the xDS protocol asks;
 * - an ACK (the last nonce, no `error_detail`) is answered only when the subscription changed;
 * - a NACK (`error_detail` set) is reported and not answered with the same version again, unless
 *   the subscription changed;
 * - the first request of a type, or one that changes the subscription, gets the resources now.
 * Empty `resource_names` subscribe to every resource of a Listener or Cluster type (wildcard),
 * and to none of a RouteConfiguration or ClusterLoadAssignment type; `*` is a wildcard anywhere.
 */

/** A DiscoveryRequest, as far as the protocol needs it. */
export interface AdsRequest {
  readonly typeUrl: string;
  readonly versionInfo: string;
  readonly resourceNames: readonly string[];
  readonly responseNonce: string;
  /** Set on a NACK: why the client refused the last response. */
  readonly errorDetail?: { readonly code: number; readonly message: string };
}

/** A DiscoveryResponse to send: the resources of one type, by name. */
export interface AdsResponse<R> {
  readonly typeUrl: string;
  readonly versionInfo: string;
  readonly nonce: string;
  readonly resources: readonly R[];
}

/** One version of every resource, by type URL and name. */
export interface AdsSnapshot<R> {
  readonly version: string;
  readonly resources: ReadonlyMap<string, ReadonlyMap<string, R>>;
}

/** What a request was, for logs and tests. */
export type AdsRequestKind = 'initial' | 'ack' | 'nack' | 'stale' | 'subscription';

/** What the session decided about one request. */
export interface AdsDecision<R> {
  readonly kind: AdsRequestKind;
  /** The responses to send now (none or one). */
  readonly responses: readonly AdsResponse<R>[];
}

/** The resource types whose empty subscription means "all" (xDS wildcard). */
const WILDCARD_TYPES = new Set([
  'type.googleapis.com/envoy.config.listener.v3.Listener',
  'type.googleapis.com/envoy.config.cluster.v3.Cluster',
]);

interface TypeState {
  /** The names subscribed to; undefined: every resource of the type. */
  names: ReadonlySet<string> | undefined;
  lastNonce: string;
  lastVersion: string;
  /** The version the client last accepted ('' before any). */
  acceptedVersion: string;
}

/** A client's ADS stream: feed it requests and snapshots, send what it returns. */
export class AdsSession<R> {
  readonly #types = new Map<string, TypeState>();
  #snapshot: AdsSnapshot<R>;
  #nonces = 0;

  constructor(snapshot: AdsSnapshot<R>) {
    this.#snapshot = snapshot;
  }

  /** The version the client last accepted for `typeUrl` ('' before any). */
  acceptedVersion(typeUrl: string): string {
    return this.#types.get(typeUrl)?.acceptedVersion ?? '';
  }

  /** Decides what a DiscoveryRequest asks for. */
  onRequest(request: AdsRequest): AdsDecision<R> {
    const state = this.#types.get(request.typeUrl);
    const names = subscription(request);
    if (state === undefined) {
      const fresh: TypeState = { names, lastNonce: '', lastVersion: '', acceptedVersion: '' };
      this.#types.set(request.typeUrl, fresh);
      return { kind: 'initial', responses: [this.#respond(request.typeUrl, fresh)] };
    }
    if (request.responseNonce !== state.lastNonce) return { kind: 'stale', responses: [] };
    const changed = !sameNames(state.names, names);
    state.names = names;
    if (request.errorDetail !== undefined) {
      return { kind: 'nack', responses: changed ? [this.#respond(request.typeUrl, state)] : [] };
    }
    state.acceptedVersion = request.versionInfo;
    if (changed)
      return { kind: 'subscription', responses: [this.#respond(request.typeUrl, state)] };
    return { kind: 'ack', responses: [] };
  }

  /** A new version of the resources: the responses for every type the client asked for. */
  onSnapshot(snapshot: AdsSnapshot<R>): AdsResponse<R>[] {
    this.#snapshot = snapshot;
    return [...this.#types].map(([typeUrl, state]) => this.#respond(typeUrl, state));
  }

  #respond(typeUrl: string, state: TypeState): AdsResponse<R> {
    const all = this.#snapshot.resources.get(typeUrl) ?? new Map<string, R>();
    const resources =
      state.names === undefined
        ? [...all.values()]
        : [...state.names].flatMap((name) => {
            const resource = all.get(name);
            return resource === undefined ? [] : [resource];
          });
    this.#nonces += 1;
    state.lastNonce = String(this.#nonces);
    state.lastVersion = this.#snapshot.version;
    return { typeUrl, versionInfo: state.lastVersion, nonce: state.lastNonce, resources };
  }
}

function subscription(request: AdsRequest): ReadonlySet<string> | undefined {
  if (request.resourceNames.includes('*')) return undefined;
  if (request.resourceNames.length === 0 && WILDCARD_TYPES.has(request.typeUrl)) return undefined;
  return new Set(request.resourceNames);
}

function sameNames(a: ReadonlySet<string> | undefined, b: ReadonlySet<string> | undefined) {
  if (a === undefined || b === undefined) return a === b;
  return a.size === b.size && [...a].every((name) => b.has(name));
}
