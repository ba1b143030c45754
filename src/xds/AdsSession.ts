import { InvalidArgumentError } from '../core/InvalidArgumentError.js';

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
 *
 * What a client can make a session hold is bounded: a request for a type the server does not
 * serve is neither answered nor remembered (kind `unknown`), and one with more than
 * `maxResourceNames` names is refused (kind `refused`; the server ends the stream), so a session
 * holds at most one subscription per served type, each of at most that many names.
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

/**
 * What a request was, for logs and tests; `unknown`: for a type the server does not serve
 * (ignored); `refused`: over a limit (the stream should end).
 */
export type AdsRequestKind =
  | 'initial'
  | 'ack'
  | 'nack'
  | 'stale'
  | 'subscription'
  | 'unknown'
  | 'refused';

/** What the session decided about one request. */
export interface AdsDecision<R> {
  readonly kind: AdsRequestKind;
  /** The responses to send now (none or one). */
  readonly responses: readonly AdsResponse<R>[];
  /** Why a request was refused (kind `refused`), for the client. */
  readonly reason?: string;
}

/** Options of {@link AdsSession}. */
export interface AdsSessionOptions {
  /**
   * The type URLs served; a request for any other is ignored and not remembered.
   * @default the types of the first snapshot
   */
  readonly servedTypes?: Iterable<string>;
  /**
   * The most resource names one request may carry; a request with more is refused.
   * @default 10000
   */
  readonly maxResourceNames?: number;
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
  /** Only served types: at most as many entries as the server has types. */
  readonly #types = new Map<string, TypeState>();
  readonly #servedTypes: ReadonlySet<string>;
  readonly #maxResourceNames: number;
  #snapshot: AdsSnapshot<R>;
  #nonces = 0;

  constructor(snapshot: AdsSnapshot<R>, options: Readonly<AdsSessionOptions> = {}) {
    const maxResourceNames = options.maxResourceNames ?? 10_000;
    if (!(Number.isSafeInteger(maxResourceNames) && maxResourceNames >= 1)) {
      throw new InvalidArgumentError(
        `maxResourceNames should be a whole number ≥ 1, got ${String(maxResourceNames)}`,
      );
    }
    this.#snapshot = snapshot;
    this.#servedTypes = new Set(options.servedTypes ?? snapshot.resources.keys());
    this.#maxResourceNames = maxResourceNames;
  }

  /** The version the client last accepted for `typeUrl` ('' before any). */
  acceptedVersion(typeUrl: string): string {
    return this.#types.get(typeUrl)?.acceptedVersion ?? '';
  }

  /** Decides what a DiscoveryRequest asks for. */
  onRequest(request: AdsRequest): AdsDecision<R> {
    // Not remembered, not answered: a client cannot grow the session with made-up types, nor
    // make the server write for it (an answer to each would be as large as the request).
    if (!this.#servedTypes.has(request.typeUrl)) return { kind: 'unknown', responses: [] };
    if (request.resourceNames.length > this.#maxResourceNames) {
      return {
        kind: 'refused',
        responses: [],
        reason: `a DiscoveryRequest may name at most ${this.#maxResourceNames} resources, got ${request.resourceNames.length}`,
      };
    }
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
