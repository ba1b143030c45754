import type { AnalysisLaw } from './orbitLaw.js';
/**
 * The analysis of a network, in the shape of docs/design.md's `--json` document. Rates are per second;
 * rejections and completions are probabilities.
 */
export interface NetworkReport {
  readonly classes: readonly { readonly name: string; readonly retries: number }[];
  readonly services: Readonly<Record<string, ServiceAnalysis>>;
  readonly endToEnd: Readonly<Record<string, EndToEndAnalysis>>;
  /**
   * Every equilibrium found, the one the main figures describe first: one entry when the state
   * is unique; `healthy` and `storm` when the configuration is bistable (a metastable failure).
   */
  readonly equilibria: readonly Equilibrium[];
  /**
   * When the load raised from zero tipped the network out of its healthy state on the way: the
   * share of the external rates at which it did (e.g. 0.59). Absent when it never tipped.
   */
  readonly tippedAt?: number;
  /**
   * Present (true) when the search from saturation did not settle: no storm state was found, but
   * none is ruled out either.
   */
  readonly stormUnsettled?: boolean;
  /** Whether the fixed point was reached to the stated tolerance. */
  readonly converged: boolean;
  /** Passes over the network (1 for a DAG solved in topological order). */
  readonly iterations: number;
  /** Largest relative change of λin (routing) or change of s (calls) in the last pass. */
  readonly residual: number;
  /**
   * When the fixed point did not converge (call graphs): the services whose s kept swinging
   * most over the last sweeps, and between which values.
   */
  readonly swinging?: readonly {
    readonly service: string;
    readonly low: number;
    readonly high: number;
  }[];
  /** `routing` (probabilistic hand-off) or `calls` (call graph with nested retries). */
  readonly mode: 'routing' | 'calls';
  /** The law the figures come from (`mean-field` or `orbit`; docs/model.md). */
  readonly law: AnalysisLaw;
  /** Why that law: `asked for`, or what made `auto` choose it (e.g. `a call graph`). */
  readonly lawReason: string;
  /** What the routing says about existence and uniqueness of the fixed point. */
  readonly structure: {
    readonly dag: boolean;
    /** ρ(F^p) per class name (the standard equations need it below 1). */
    readonly spectralRadius: Readonly<Record<string, number>>;
    /** ‖F‖∞, the largest total routing probability out of any service, over classes. */
    readonly normInf: number;
    /**
     * `dag`, `norm` (‖F‖∞ < 1/(P − 1)), `class-independent` (same routing, P ≤ 2) or `none`;
     * always `none` for call graphs and per-try timeouts, where no condition is known.
     */
    readonly uniqueness: 'dag' | 'norm' | 'class-independent' | 'none';
  };
  /** Offered work over the whole network. */
  readonly load: NetworkLoad;
}

/**
 * One equilibrium (docs/design.md, "Added since the first brief"): `healthy` is the state an idle
 * network reaches as its load rises, `storm` the state a network in a retry storm (every attempt
 * failing) settles in when it is another one.
 */
export interface Equilibrium {
  readonly kind: 'healthy' | 'storm';
  /**
   * Whether the solver's relaxation settles on it (false: a fixed point found by continuation,
   * around which the relaxation oscillates).
   */
  readonly stable: boolean;
  readonly endToEnd: Readonly<Record<string, EndToEndAnalysis>>;
  /** Attempts at every service per external request. */
  readonly attemptsPerRequest: number;
  readonly services: Readonly<
    Record<
      string,
      {
        readonly s: number;
        readonly rho: number;
        /**
         * Under the orbit law, where the service has two states: the mean time, in seconds, it
         * stays in this one before it leaves for the other (docs/model.md, "How long each state
         * lasts").
         */
        readonly escapeSeconds?: number;
        /**
         * Under the orbit law, per class: how the share of its requests failing here swings
         * within this state as the orbit moves (docs/model.md, "What a window reads"), and how
         * much the class's end-to-end rejection moves with it: what a window of the network's
         * requests scatters by (`sweepRamp` with a window).
         */
        readonly failedShares?: Readonly<Record<string, FailedShareSwing>>;
      }
    >
  >;
}

/** How a class's failed share at one service swings within a state (orbit law). */
export interface FailedShareSwing {
  /** The state's give-ups over its ending requests of the class here. */
  readonly share: number;
  /** The variance of the swing at one instant. */
  readonly variance: number;
  /** lim W · Var(its average over W seconds): with `variance`, a window's spread. */
  readonly asymptoticVariance: number;
  /**
   * ∂R/∂R_i: how much the class's end-to-end rejection moves per unit of its rejection here
   * (requests entering here per external request × the chance one that succeeds here completes
   * the rest of its path; 1 for a service standing alone).
   */
  readonly endToEnd: number;
}

/** One service's solved state. */
export interface ServiceAnalysis {
  readonly model: string;
  /** Attempt-rejection probability. */
  readonly s: number;
  /** Offered load counting every attempt, Σ Λ / μ. */
  readonly rho: number;
  readonly classes: Readonly<Record<string, ServiceClassAnalysis>>;
}

/** One class at one service. */
export interface ServiceClassAnalysis {
  /**
   * λin, requests per second arriving before retries (external plus routed in); in call-graph
   * mode, calls per second arriving.
   */
  readonly in: number;
  /** λout = λin (1 − R), requests per second that get through. */
  readonly out: number;
  /** Λ, attempts per second. */
  readonly attempts: number;
  /**
   * R, probability that a request fails here after this hop's retries: every attempt rejected
   * (routing), or, in call-graph mode, every attempt rejected or failed by a child call.
   */
  readonly rejection: number;
}

/** End-to-end figures of a class. */
export interface EndToEndAnalysis {
  readonly rejection: number;
  readonly completion: number;
  /** γ, the class's external requests per second. */
  readonly requests: number;
}

/** Offered work over the whole network, every class together (analysed or simulated). */
export interface NetworkLoad {
  /** Σ γ, external requests per second. */
  readonly external: number;
  /** Σ Λ over every service and class, attempts per second. */
  readonly attempts: number;
  /** Attempts per external request (the fan-out and retries together). */
  readonly attemptsPerRequest: number;
  /** Attempts per external request that completes. */
  readonly attemptsPerSuccess: number;
  /**
   * Attempts that services make to each other (every attempt but the external clients' own
   * attempts at the entry), per external request: the internal calls of a request with its
   * nested retries. With no retries and no rejection it is the fan-out.
   */
  readonly internalPerRequest: number;
  /** Internal attempts per external request that completes. */
  readonly internalPerSuccess: number;
}
