/** How one call to a child is made. */
export interface DownstreamCallOptions {
  /** The path at the child (its endpoint, e.g. `/search`); default `/`. */
  readonly path?: string;
  /** Marks the call as an external request (the load generator's, through the ingress). */
  readonly external?: boolean;
  /**
   * The OpenTelemetry context of the request making the call (its server span), when the
   * testbed traces: the call's attempts are its children.
   */
  readonly trace?: unknown;
}

/**
 * How a testbed service (or the ingress) calls a child: one logical call, retried at this hop
 * under the DiffTry limits of the child's class, resolving true when it finally succeeded (a
 * 200) and false when every attempt failed. Two implementations: through the caller's sidecar
 * ({@link sidecarDownstream}, the deployment the paper measures) and in-process with the
 * runtime's `retry()` ({@link directDownstream}).
 */
export interface Downstream {
  /**
   * Calls `child` for a request of class `className`.
   * @returns true on success, false when the call failed after the hop's retries.
   */
  call(child: string, className: string, options?: DownstreamCallOptions): Promise<boolean>;
  /** Aborts calls in flight (and their waits between retries) and closes connections. */
  close(): Promise<void>;
}

/** The request header that marks an external request (set by the load generator). */
export const EXTERNAL_HEADER = 'x-testbed-external';
