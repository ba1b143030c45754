/** Reads one header or metadata value by (case-insensitive) name. */
export type HeaderLookup = (name: string) => string | undefined;

/**
 * What one attempt came to, in the terms a retry decision needs. Adapters translate their
 * host's results into this: an HTTP response, a gRPC status, a network error, a per-try timeout.
 */
export type AttemptOutcome =
  /** The attempt succeeded; nothing to retry. */
  | { readonly kind: 'success' }
  /** An HTTP response; `header` gives access to `Retry-After`. */
  | { readonly kind: 'status'; readonly status: number; readonly header?: HeaderLookup }
  /** A gRPC status code; `metadata` gives access to `grpc-retry-pushback-ms`. */
  | { readonly kind: 'grpc'; readonly code: number; readonly metadata?: HeaderLookup }
  /** A network error (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`, …) or any other throw. */
  | { readonly kind: 'error'; readonly code?: string }
  /** The per-try timeout expired. */
  | { readonly kind: 'timeout' };

/** gRPC status codes used by the defaults. */
export const GRPC_STATUS = Object.freeze({ RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14 });
