/**
 * An independent evaluation of call-graph mode at a given vector s of attempt-rejection
 * probabilities. What one accepted attempt at a service does is found by brute force: every
 * individual call's outcome is enumerated (success with the child's call-success probability,
 * else failure) and the program is run as docs/model.md describes it — calls in order, a
 * sequential call made only if everything before it succeeded, a run of adjacent parallel calls
 * issued together (all of them, n times each), then one branch chosen with its probability (none
 * with the probability left over). The hop arithmetic uses sum forms:
 * A = Σ_{r≤k} (1 − q)^r, S = q·A.
 *
 * Follow-up calls (docs/model.md, "Follow-up calls"; with `followUps` only): a sequential call to
 * a *followed* service —
 * one that makes no calls, has no per-try timeout, and is called n ≥ 2 times in a row or twice in
 * a row somewhere — made right after a call to the same service succeeded, is let in and
 * succeeds: one attempt. At a followed service `s` is the rejection of a fresh attempt.
 */
import type { NetworkCall, NetworkModel } from '../../../src/model/index.js';
import { phiReference } from '../reference.js';

/** What one accepted attempt's program does, in expectation. */
export interface ProgramOutcome {
  /** Probability that every call made succeeds. */
  readonly success: number;
  /** Expected calls made to each service. */
  readonly calls: number[];
  /** Of those, the follow-up calls. */
  readonly follows: number[];
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
  /** Of callsIn, the follow-up calls. */
  readonly followIn: number[][];
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
  followed: readonly boolean[],
  done: (
    probability: number,
    made: readonly number[],
    follows: readonly number[],
    succeeded: boolean,
  ) => void,
  serviceCount: number,
): void {
  const made = new Array<number>(serviceCount).fill(0);
  const follows = new Array<number>(serviceCount).fill(0);
  // `before`: the service the call just before went to, sequentially and successfully (−1: none).
  const runStep = (index: number, probability: number, before: number) => {
    if (probability === 0) return;
    if (index === groups.length) {
      done(probability, made, follows, true);
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
          if (allOk) runStep(index + 1, pr, -1);
          else done(pr, made, follows, false);
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
    // Sequential: stop at the first failure; a follow-up cannot fail.
    const sequential = (i: number, pr: number, last: number) => {
      if (pr === 0) return;
      if (i === singles.length) {
        runStep(index + 1, pr, last);
        return;
      }
      const to = singles[i] as number;
      const follow = to === last && followed[to] === true;
      made[to] = (made[to] as number) + 1;
      if (follow) {
        follows[to] = (follows[to] as number) + 1;
        sequential(i + 1, pr, to);
        follows[to] = (follows[to] as number) - 1;
      } else {
        const ok = callSuccess[to] as number;
        sequential(i + 1, pr * ok, to);
        done(pr * (1 - ok), made, follows, false);
      }
      made[to] = (made[to] as number) - 1;
    };
    sequential(0, probability, before);
  };
  runStep(0, 1, -1);
}

/**
 * The followed services: no calls of their own (any class), no per-try timeout, and called
 * sequentially n ≥ 2 times in one entry, or by two sequential entries in a row.
 */
export function followedServices(network: NetworkModel): boolean[] {
  if (network.followUps !== true) return network.services.map(() => false);
  const lists = network.services.map((s) => [
    s.calls ?? [],
    ...(s.branches ?? []).map((b) => b.calls),
  ]);
  const leaf = network.services.map(
    (s, j) =>
      (lists[j] ?? []).every((list) => list.length === 0) &&
      !(s.timeouts ?? []).some((x) => x !== undefined && x > 0),
  );
  const followed = network.services.map(() => false);
  network.classes.forEach((_, p) => {
    for (const list of lists.flat()) {
      const mine = list.filter((c) => c.classIndex === undefined || c.classIndex === p);
      mine.forEach((c, i) => {
        if (c.parallel || !leaf[c.to]) return;
        const previous = mine[i - 1];
        if (c.n >= 2 || (previous !== undefined && !previous.parallel && previous.to === c.to))
          followed[c.to] = true;
      });
    }
  });
  return followed;
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
  followed: readonly boolean[] = followedServices(network),
): ProgramOutcome {
  const n = network.services.length;
  const service = network.services[j];
  const calls = new Array<number>(n).fill(0);
  const follows = new Array<number>(n).fill(0);
  let success = 0;
  if (service === undefined) return { success, calls, follows };
  const main = steps(service.calls ?? [], p);
  const branches = service.branches ?? [];
  const leftover = 1 - branches.reduce((sum, b) => sum + b.p, 0);
  enumerate(
    main,
    callSuccess,
    followed,
    (probability, made, followMade, succeeded) => {
      made.forEach((m, c) => {
        calls[c] = (calls[c] as number) + probability * m;
      });
      followMade.forEach((m, c) => {
        follows[c] = (follows[c] as number) + probability * m;
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
          followed,
          (pr, madeInBranch, followInBranch, ok) => {
            madeInBranch.forEach((m, c) => {
              calls[c] = (calls[c] as number) + probability * branch.p * pr * m;
            });
            followInBranch.forEach((m, c) => {
              follows[c] = (follows[c] as number) + probability * branch.p * pr * m;
            });
            if (ok) success += probability * branch.p * pr;
          },
          n,
        );
      }
    },
    n,
  );
  return { success, calls, follows };
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
  const followIn = table();
  const attempts = table();
  const outcomes: ProgramOutcome[][] = Array.from({ length: n }, () => []);
  const followed = followedServices(network);
  const limit = (i: number, p: number) =>
    network.services[i]?.retryLimits[p] ?? network.classes[p]?.retryLimit ?? 0;
  for (let p = 0; p < classCount; p++) {
    for (const j of [...order].reverse()) {
      const success = callSuccess.map((row) => row[p] as number);
      const outcome = programOutcome(network, j, p, success, followed);
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
      const calls = (callsIn[j] as number[])[p] as number;
      const follows = (followIn[j] as number[])[p] as number;
      // A follow-up call: one attempt, let in.
      const a = (calls - follows) * ((attemptsPerCall[j] as number[])[p] as number) + follows;
      (attempts[j] as number[])[p] = a;
      const accepted = a - (s[j] as number) * (a - follows);
      outcomes[j]?.[p]?.calls.forEach((m, c) => {
        (callsIn[c] as number[])[p] = ((callsIn[c] as number[])[p] as number) + accepted * m;
      });
      outcomes[j]?.[p]?.follows.forEach((m, c) => {
        (followIn[c] as number[])[p] = ((followIn[c] as number[])[p] as number) + accepted * m;
      });
    }
  }
  const load = attempts.map((row) => row.reduce((x, y) => x + y, 0));
  return { attemptSuccess, callSuccess, attemptsPerCall, callsIn, followIn, attempts, load };
}

/**
 * How far s is from the model's closure at each service, the loads recomputed by
 * {@link evaluateCalls}: |s_j − φ_j(ρ_j)|, and at a followed service, where s_j is a fresh
 * attempt's rejection π, |π − φ_j(ρ_a + ρ_f/(1 − π))| (ρ_f: follow-ups per second over μ).
 */
export function closureGaps(
  network: NetworkModel,
  s: readonly number[],
  phi: (j: number, rho: number) => number,
): number[] {
  const reference = evaluateCalls(network, s);
  return network.services.map((service, j) => {
    const pi = s[j] as number;
    const rho = (reference.load[j] as number) / service.capacity;
    const follow = (reference.followIn[j] ?? []).reduce((x, y) => x + y, 0) / service.capacity;
    const at = follow > 0 ? rho - follow + follow / (1 - pi) : rho;
    return Math.abs(pi - phi(j, at));
  });
}

/** The largest of {@link closureGaps} with the reference laws (`phiReference`). */
export function fixedPointError(network: NetworkModel, s: readonly number[]): number {
  const gaps = closureGaps(network, s, (j, rho) => {
    const service = network.services[j];
    return service === undefined ? Number.NaN : phiReference(service.model, rho, service.queue);
  });
  return gaps.reduce((most, gap) => Math.max(most, gap), 0);
}
