/** How a service's capacity was found. */
export type CapacityMethod =
  /** μ = X / U from the service's own server spans (its busy time outside its calls). */
  | 'utilization'
  /** The same from the client spans calling it: the callee records no spans of its own. */
  | 'client-spans'
  /** `--capacity SERVICE=N`. */
  | 'given'
  /** No busy time to measure: 100 times the service's load (`UNMEASURED_HEADROOM`), a guess. */
  | 'guess';

/** What the traces say of one service. */
export interface ServiceEvidence {
  readonly name: string;
  /** Whether requests reach it from outside (server spans with no server span above them). */
  readonly entry: boolean;
  /** Requests (server spans) that started in the window, and those it turned away. */
  readonly requests: number;
  readonly rejected: number;
  /** External requests per second per class, at an entry. */
  readonly arrivals: Readonly<Record<string, number>>;
  readonly capacity: {
    /** μ, requests per second (what the file says). */
    readonly value: number;
    readonly method: CapacityMethod;
    /** The spans it rests on (0 for `given`). */
    readonly spans: number;
    /**
     * About how far off the estimate may be, as a share of it (95 %): 1.96/√spans, the sampling
     * error of a mean of that many exponential service times; Infinity with no spans.
     */
    readonly relativeCi95: number;
    /** U: the share of the window the service was busy. */
    readonly busyShare: number;
    /** X: requests completed per second. */
    readonly throughput: number;
  };
  /** Distinct call sets its requests made, and the share of requests whose set was left out. */
  readonly callSets: number;
  readonly leftOutShare: number;
  /** Client spans below its requests whose callee no span names. */
  readonly unresolvedCalls: number;
}

/** What the traces say of calls into one service by one class. */
export interface HopEvidence {
  readonly callee: string;
  readonly className: string;
  /** Calls (a first attempt and its retries) and attempts. */
  readonly calls: number;
  readonly attempts: number;
  /**
   * Attempts that failed (retried, or the last of a failed call). A hop with none shows nothing
   * of its retry limit: the file gives it the class's.
   */
  readonly failedAttempts: number;
  /** The most retries one call made: the file's retry limit (the deployed one is at least this). */
  readonly maxRetries: number;
}

/** A call edge dropped to keep the call graph acyclic (the file's calls must be). */
export interface DroppedEdge {
  readonly caller: string;
  readonly callee: string;
  /** Calls on it in the window. */
  readonly calls: number;
}

/** Everything `difftry from-traces` inferred its network from, for the header and `--json`. */
export interface TraceEvidence {
  /** Spans read (each once), and spans read again under an id already read. */
  readonly spans: number;
  readonly duplicateSpans: number;
  /** The window, seconds since the Unix epoch, and how it was chosen. */
  readonly window: {
    readonly from: number;
    readonly to: number;
    readonly seconds: number;
    readonly chosen: 'given' | 'entry requests';
  };
  /** External requests in the window. */
  readonly entryRequests: number;
  readonly services: readonly ServiceEvidence[];
  readonly hops: readonly HopEvidence[];
  readonly droppedEdges: readonly DroppedEdge[];
  /** The class given to requests that carry none. */
  readonly defaultClass: string;
  /** Requests (at any service) that carried no class, themselves or above them. */
  readonly unclassedRequests: number;
  /** m, every service's queue, and whether it was given (`--queue`) or the default. */
  readonly queue: { readonly value: number; readonly given: boolean };
}
