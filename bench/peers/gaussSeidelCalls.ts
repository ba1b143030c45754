/**
 * The benchmark's peer: difftry's call-graph solver before the typed-array solver (commit 6e26a09),
 * kept verbatim but for its name and imports. Gauss–Seidel sweeps in topological order, each s_j
 * solved by Brent's method with a full evaluation of the network per function evaluation (so
 * O(N · calls) per sweep), halving a relaxation factor when the residual stalls.
 */

import type { NetworkCall, NetworkModel } from '../../src/model/network/NetworkModel.js';
import { prepareServices } from '../../src/model/network/prepare.js';
import { successorLists, topologicalOrder } from '../../src/model/network/topology.js';
import { brentRoot } from '../../src/model/numeric/brent.js';
import { FIXED_POINT_TOLERANCE } from '../../src/model/service.js';

/** Options of {@link solveCalls}. */
interface CallSolveOptions {
  /** Absolute tolerance on every s_i between two sweeps; default 1e-12. */
  readonly tolerance?: number;
  /** Most Gauss–Seidel sweeps; default 1,000. */
  readonly maxIterations?: number;
  /** Starting s per service; default 0 everywhere. */
  readonly initialS?: readonly number[];
}

/** The solved state of a call-graph network, per service i and class p. */
interface CallSolution {
  /** Calls per second arriving at i (external requests included), before retries. */
  readonly callsIn: number[][];
  /** Attempts per second at i. */
  readonly attempts: number[][];
  /** Probability that one attempt at i succeeds: accepted, and every child call succeeds. */
  readonly attemptSuccess: number[][];
  /** Probability that a call to i succeeds within its hop's retries. */
  readonly callSuccess: number[][];
  readonly s: number[];
  readonly converged: boolean;
  readonly iterations: number;
  /** Largest change of any s_i in the last sweep. */
  readonly residual: number;
}

/** A class's view of a service's calls: the unconditional calls, then the branches. */
interface Program {
  readonly calls: readonly NetworkCall[];
  readonly branches: readonly { readonly p: number; readonly calls: readonly NetworkCall[] }[];
}

/**
 * Solves call-graph mode (docs/model.md, "Call-graph mode"). Every accepted attempt at service j
 * runs j's calls in order (and one branch, chosen with its probability); a call to child c is
 * retried by j's hop up to k_c^p times, and the attempt at j succeeds only if every call does, so
 * a failing grandchild fails the child's attempt, which the child's caller retries, re-running the
 * subtree (nested retries).
 *
 * With s the vector of attempt-rejection probabilities, bottom-up:
 * q_j = (1 − s_j) · W_j (W_j: probability that j's calls all succeed),
 * S_j = 1 − (1 − q_j)^(k_j+1) (a call to j succeeds), A_j = Σ_{r≤k_j} (1 − q_j)^r (attempts per call);
 * top-down: calls into c = γ_c + Σ_j (accepted attempts at j) × (expected calls j → c per accepted
 * attempt, counting that a sequential call is made only if the calls before it succeeded);
 * Λ_c = calls_c · A_c and s_c = φ_c(Σ_p Λ_c^p / μ_c). The fixed point in s is found by
 * Gauss–Seidel sweeps, each s_j solved by Brent's method with the others fixed.
 */
export function gaussSeidelCalls(
  network: NetworkModel,
  options: CallSolveOptions = {},
): CallSolution {
  const tolerance = options.tolerance ?? FIXED_POINT_TOLERANCE;
  const maxIterations = options.maxIterations ?? 1000;
  const services = prepareServices(network);
  const n = services.length;
  const classCount = network.classes.length;
  const successors = successorLists(network.services, { routes: false, calls: true });

  const topo = topologicalOrder(successors);
  if (topo === undefined)
    throw new RangeError('calls must form a DAG (no service may call itself back)');
  const bottomUp = [...topo].reverse();
  const programs: Program[][] = network.services.map((service) =>
    network.classes.map((_, p) => {
      const forClass = (calls: readonly NetworkCall[]) =>
        calls.filter((c) => c.classIndex === undefined || c.classIndex === p);
      return {
        calls: forClass(service.calls ?? []),
        branches: (service.branches ?? []).map((b) => ({ p: b.p, calls: forClass(b.calls) })),
      };
    }),
  );
  const gamma = network.services.map((s) => network.classes.map((_, p) => s.arrivals[p] ?? 0));
  const limits = services.map((svc) => svc.loads.map((l) => l.retryLimit));

  const s = network.services.map((_, i) => options.initialS?.[i] ?? 0);
  const attemptSuccess = gamma.map((row) => row.map(() => 1));
  const callSuccess = gamma.map((row) => row.map(() => 1));
  const attemptsPerCall = gamma.map((row) => row.map(() => 1));
  const callsIn = gamma.map((row) => row.map(() => 0));
  const attempts = gamma.map((row) => row.map(() => 0));
  const load = new Float64Array(n);

  const evaluate = () => {
    for (const j of bottomUp) {
      for (let p = 0; p < classCount; p++) {
        const work = programSuccess(programs[j]?.[p] as Program, callSuccess, p);
        const q = (1 - (s[j] as number)) * work;
        const k = limits[j]?.[p] ?? 0;
        // S = 1 − (1 − q)^(k+1) and A = S/q, through log1p/expm1 so a tiny q keeps its digits
        // (1 − q would round to 1 and A to 0 instead of k + 1).
        const success = q >= 1 ? 1 : -Math.expm1((k + 1) * Math.log1p(-q));
        (attemptSuccess[j] as number[])[p] = q;
        (callSuccess[j] as number[])[p] = success;
        (attemptsPerCall[j] as number[])[p] = q > 0 ? success / q : k + 1;
      }
    }
    for (let i = 0; i < n; i++)
      for (let p = 0; p < classCount; p++)
        (callsIn[i] as number[])[p] = (gamma[i] as number[])[p] as number;
    load.fill(0);
    for (const j of topo) {
      for (let p = 0; p < classCount; p++) {
        const a =
          ((callsIn[j] as number[])[p] as number) * ((attemptsPerCall[j] as number[])[p] as number);
        (attempts[j] as number[])[p] = a;
        load[j] = (load[j] as number) + a;
        const accepted = a * (1 - (s[j] as number));
        if (accepted > 0)
          distributeCalls(programs[j]?.[p] as Program, callSuccess, p, accepted, callsIn);
      }
    }
  };

  let iterations = 0;
  let residual = 0;
  let converged = false;
  // Sweeps start undamped; if the residual stops shrinking (a child and its callers pulling s
  // back and forth), each update moves only part of the way to its new root.
  let relaxation = 1;
  let best = Number.POSITIVE_INFINITY;
  let stalled = 0;
  while (iterations < maxIterations) {
    iterations++;
    if (residual > 0 && residual >= best) {
      if (++stalled >= 5 && relaxation > 1 / 64) {
        relaxation /= 2;
        stalled = 0;
      }
    } else if (residual > 0) {
      best = residual;
      stalled = 0;
    }
    residual = 0;
    for (const j of topo) {
      const service = services[j];
      if (service === undefined) continue;
      const h = (x: number) => {
        s[j] = x;
        evaluate();
        return x - service.phi((load[j] as number) / service.capacity);
      };
      const old = s[j] as number;
      const root = h(0) >= 0 ? 0 : brentRoot(h, 0, 1, tolerance * 1e-2).root;
      s[j] = old + relaxation * (root - old);
      residual = Math.max(residual, Math.abs(root - old));
    }
    if (residual <= tolerance) {
      converged = true;
      break;
    }
  }
  evaluate();
  return { callsIn, attempts, attemptSuccess, callSuccess, s, converged, iterations, residual };
}

/** Probability that every call of a program succeeds. */
function programSuccess(
  program: Program,
  callSuccess: readonly (readonly number[])[],
  p: number,
): number {
  let success = callsSuccess(program.calls, callSuccess, p);
  if (program.branches.length > 0) {
    let branchSuccess = 1;
    for (const b of program.branches)
      branchSuccess -= b.p * (1 - callsSuccess(b.calls, callSuccess, p));
    success *= branchSuccess;
  }
  return success;
}

function callsSuccess(
  calls: readonly NetworkCall[],
  callSuccess: readonly (readonly number[])[],
  p: number,
): number {
  let success = 1;
  for (const c of calls) success *= ((callSuccess[c.to] as number[])[p] as number) ** c.n;
  return success;
}

/**
 * Adds to `callsIn` the calls that `accepted` attempts per second of a program make, walking the
 * calls in order: a sequential call is made only while everything before it has succeeded; a run
 * of parallel calls is issued together.
 */
function distributeCalls(
  program: Program,
  callSuccess: readonly (readonly number[])[],
  p: number,
  accepted: number,
  callsIn: number[][],
): void {
  const alive = walk(program.calls, callSuccess, p, accepted, callsIn);
  for (const b of program.branches) walk(b.calls, callSuccess, p, alive * b.p, callsIn);
}

function walk(
  calls: readonly NetworkCall[],
  callSuccess: readonly (readonly number[])[],
  p: number,
  start: number,
  callsIn: number[][],
): number {
  let alive = start;
  let i = 0;
  while (i < calls.length) {
    const call = calls[i] as NetworkCall;
    if (call.parallel) {
      let groupSuccess = 1;
      let end = i;
      while (end < calls.length && (calls[end] as NetworkCall).parallel) {
        const c = calls[end] as NetworkCall;
        (callsIn[c.to] as number[])[p] = ((callsIn[c.to] as number[])[p] as number) + alive * c.n;
        groupSuccess *= ((callSuccess[c.to] as number[])[p] as number) ** c.n;
        end++;
      }
      alive *= groupSuccess;
      i = end;
      continue;
    }
    const success = (callSuccess[call.to] as number[])[p] as number;
    // n sequential calls: the m-th is made if the m − 1 before it succeeded.
    let made = 0;
    let reach = 1;
    for (let m = 0; m < call.n; m++) {
      made += reach;
      reach *= success;
    }
    (callsIn[call.to] as number[])[p] =
      ((callsIn[call.to] as number[])[p] as number) + alive * made;
    alive *= reach;
    i++;
  }
  return alive;
}
