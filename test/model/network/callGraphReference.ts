/**
 * An independent evaluation of call-graph mode at a given vector s of attempt-rejection
 * probabilities. What one accepted attempt at a service does is found by brute force: every
 * individual call's outcome is enumerated (success with the child's call-success probability,
 * else failure) and the program is run as docs/model.md describes it — calls in order, a
 * sequential call made only if everything before it succeeded, a run of adjacent parallel calls
 * issued together (all of them, n times each), then one branch chosen with its probability (none
 * with the probability left over). The hop arithmetic uses sum forms:
 * A = Σ_{r≤k} (1 − q)^r, S = q·A.
 */
import type { NetworkCall, NetworkModel } from '../../../src/model/index.js';

/** What one accepted attempt's program does, in expectation. */
export interface ProgramOutcome {
  /** Probability that every call made succeeds. */
  readonly success: number;
  /** Expected calls made to each service. */
  readonly calls: number[];
}

/** A hop's figures at one service and class. */
export interface CallReference {
  /** q: one attempt is accepted and its program succeeds. */
  readonly attemptSuccess: number[][];
  /** S: a call succeeds within the hop's retries. */
  readonly callSuccess: number[][];
  /** A: attempts per call. */
  readonly attemptsPerCall: number[][];
  readonly callsIn: number[][];
  readonly attempts: number[][];
  /** Σ_p attempts, per service. */
  readonly load: number[];
}

/** The calls of one class, grouped into steps: a sequential call alone, or a run of parallel ones. */
function steps(calls: readonly NetworkCall[], p: number): NetworkCall[][] {
  const mine = calls.filter((c) => c.classIndex === undefined || c.classIndex === p);
  const grouped: NetworkCall[][] = [];
  for (const call of mine) {
    const last = grouped[grouped.length - 1];
    const lastCall = last?.[0];
    if (call.parallel && last !== undefined && lastCall?.parallel) last.push(call);
    else grouped.push([call]);
  }
  return grouped;
}

/**
 * Enumerates every outcome of a list of steps, calling `done(probability, callsMade, succeeded)`
 * for each leaf. `callSuccess[c]` is the probability that one call to c succeeds.
 */
function enumerate(
  groups: readonly NetworkCall[][],
  callSuccess: readonly number[],
  done: (probability: number, made: readonly number[], succeeded: boolean) => void,
  serviceCount: number,
): void {
  const made = new Array<number>(serviceCount).fill(0);
  const runStep = (index: number, probability: number) => {
    if (probability === 0) return;
    if (index === groups.length) {
      done(probability, made, true);
      return;
    }
    const group = groups[index] as NetworkCall[];
    const parallel = group[0]?.parallel === true;
    // Individual calls of this step, in order.
    const singles = group.flatMap((c) => Array.from({ length: c.n }, () => c.to));
    if (parallel) {
      // Every call is made; branch on each outcome.
      for (const to of singles) made[to] = (made[to] as number) + 1;
      const branch = (i: number, pr: number, allOk: boolean) => {
        if (pr === 0) return;
        if (i === singles.length) {
          if (allOk) runStep(index + 1, pr);
          else done(pr, made, false);
          return;
        }
        const ok = callSuccess[singles[i] as number] as number;
        branch(i + 1, pr * ok, allOk);
        branch(i + 1, pr * (1 - ok), false);
      };
      branch(0, probability, true);
      for (const to of singles) made[to] = (made[to] as number) - 1;
      return;
    }
    // Sequential: stop at the first failure.
    const sequential = (i: number, pr: number) => {
      if (pr === 0) return;
      if (i === singles.length) {
        runStep(index + 1, pr);
        return;
      }
      const to = singles[i] as number;
      const ok = callSuccess[to] as number;
      made[to] = (made[to] as number) + 1;
      sequential(i + 1, pr * ok);
      done(pr * (1 - ok), made, false);
      made[to] = (made[to] as number) - 1;
    };
    sequential(0, probability);
  };
  runStep(0, 1);
}

/**
 * The expected outcome of one accepted class-p attempt at service `j`, given the probability that
 * one call to each service succeeds.
 */
export function programOutcome(
  network: NetworkModel,
  j: number,
  p: number,
  callSuccess: readonly number[],
): ProgramOutcome {
  const n = network.services.length;
  const service = network.services[j];
  const calls = new Array<number>(n).fill(0);
  let success = 0;
  if (service === undefined) return { success, calls };
  const main = steps(service.calls ?? [], p);
  const branches = service.branches ?? [];
  const leftover = 1 - branches.reduce((sum, b) => sum + b.p, 0);
  enumerate(
    main,
    callSuccess,
    (probability, made, succeeded) => {
      made.forEach((m, c) => {
        calls[c] = (calls[c] as number) + probability * m;
      });
      if (!succeeded) return;
      if (branches.length === 0) {
        success += probability;
        return;
      }
      success += probability * Math.max(leftover, 0);
      for (const branch of branches) {
        // The branch's own enumeration counts only the branch's calls.
        enumerate(
          steps(branch.calls, p),
          callSuccess,
          (pr, madeInBranch, ok) => {
            madeInBranch.forEach((m, c) => {
              calls[c] = (calls[c] as number) + probability * branch.p * pr * m;
            });
            if (ok) success += probability * branch.p * pr;
          },
          n,
        );
      }
    },
    n,
  );
  return { success, calls };
}

/** A topological order of the call graph by depth-first search (callers before callees). */
export function callOrder(network: NetworkModel): number[] {
  const n = network.services.length;
  const state = new Array<number>(n).fill(0);
  const post: number[] = [];
  const children = (i: number) => {
    const s = network.services[i];
    return [...(s?.calls ?? []), ...(s?.branches ?? []).flatMap((b) => b.calls)].map((c) => c.to);
  };
  const visit = (i: number) => {
    if (state[i] === 2) return;
    if (state[i] === 1) throw new Error('calls form a cycle');
    state[i] = 1;
    for (const c of children(i)) visit(c);
    state[i] = 2;
    post.push(i);
  };
  for (let i = 0; i < n; i++) visit(i);
  return post.reverse();
}

/**
 * Evaluates every hop of a call-graph network at the given s (one per service): bottom-up the
 * success probabilities, top-down the calls and attempts.
 */
export function evaluateCalls(network: NetworkModel, s: readonly number[]): CallReference {
  const n = network.services.length;
  const classCount = network.classes.length;
  const order = callOrder(network);
  const table = () => Array.from({ length: n }, () => new Array<number>(classCount).fill(0));
  const attemptSuccess = table();
  const callSuccess = table();
  const attemptsPerCall = table();
  const callsIn = table();
  const attempts = table();
  const outcomes: ProgramOutcome[][] = Array.from({ length: n }, () => []);
  const limit = (i: number, p: number) =>
    network.services[i]?.retryLimits[p] ?? network.classes[p]?.retryLimit ?? 0;
  for (let p = 0; p < classCount; p++) {
    for (const j of [...order].reverse()) {
      const success = callSuccess.map((row) => row[p] as number);
      const outcome = programOutcome(network, j, p, success);
      (outcomes[j] as ProgramOutcome[])[p] = outcome;
      const q = (1 - (s[j] as number)) * outcome.success;
      let perCall = 0;
      for (let r = 0; r <= limit(j, p); r++) perCall += (1 - q) ** r;
      (attemptSuccess[j] as number[])[p] = q;
      (attemptsPerCall[j] as number[])[p] = perCall;
      (callSuccess[j] as number[])[p] = q * perCall;
    }
    for (let i = 0; i < n; i++) (callsIn[i] as number[])[p] = network.services[i]?.arrivals[p] ?? 0;
    for (const j of order) {
      const a =
        ((callsIn[j] as number[])[p] as number) * ((attemptsPerCall[j] as number[])[p] as number);
      (attempts[j] as number[])[p] = a;
      const accepted = a * (1 - (s[j] as number));
      outcomes[j]?.[p]?.calls.forEach((m, c) => {
        (callsIn[c] as number[])[p] = ((callsIn[c] as number[])[p] as number) + accepted * m;
      });
    }
  }
  const load = attempts.map((row) => row.reduce((x, y) => x + y, 0));
  return { attemptSuccess, callSuccess, attemptsPerCall, callsIn, attempts, load };
}
