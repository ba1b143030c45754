/**
 * The call-graph analysis's equations evaluated at a given state — attempt rejections s, one per
 * service, simulated ones say — instead of the state it solves for (scripts/validate-calls.ts,
 * scripts/call-closure.ts): the loads the model's flows give at that s, and the end-to-end
 * rejection its product form gives there.
 */
import { compileCallPlan } from '../../model/network/callPlan.js';
import { CallSweep } from '../../model/network/callSweep.js';
import type { NetworkModel, NetworkService } from '../../model/network/NetworkModel.js';

/**
 * The offered load ρ the model's flows give each service (in network order) when its attempt
 * rejections are `s` (simulated ones, say), without solving for them: the call-graph sweep's
 * tables evaluated at that state. NaN in `s` is taken as 0.
 */
export function loadsAtS(network: NetworkModel, s: readonly number[]): Float64Array {
  const sweep = new CallSweep(compileCallPlan(network));
  sweep.s.set(s.map((x) => (Number.isFinite(x) ? x : 0)));
  sweep.evaluate(1);
  return sweep.rho;
}

/**
 * Each service's depth in a call graph: the longest chain of calls (main calls and branches)
 * from a service no one calls.
 */
export function callDepths(network: NetworkModel): number[] {
  const n = network.services.length;
  const children = network.services.map((s) =>
    [...(s.calls ?? []), ...(s.branches ?? []).flatMap((b) => b.calls)].map((c) => c.to),
  );
  const indegree = new Array<number>(n).fill(0);
  for (const list of children) for (const c of list) indegree[c] = (indegree[c] ?? 0) + 1;
  const depth = new Array<number>(n).fill(0);
  const queue = indegree.flatMap((d, i) => (d === 0 ? [i] : []));
  // Kahn's order: a service's depth is final once every caller has been taken.
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head] as number;
    for (const c of children[i] ?? []) {
      depth[c] = Math.max(depth[c] ?? 0, (depth[i] ?? 0) + 1);
      indegree[c] = (indegree[c] ?? 0) - 1;
      if (indegree[c] === 0) queue.push(c);
    }
  }
  return depth;
}

/**
 * Per class name: the end-to-end rejection the analysis's equations give at the attempt
 * rejections `s` (one per service, in network order), without solving for them — a call to j
 * succeeds with S = 1 − (1 − q)^(k+1), q = (1 − s_j) · W, W the probability that every call of
 * the attempt succeeds (the product over its calls, n times each, and over the branch taken).
 * Given a simulated run's s it separates the two ways the analysis can miss: the product form
 * (attempts and calls failing independently) and the state it settles in (which services are
 * saturated). Per-try timeouts are not included.
 */
export function rejectionAtS(network: NetworkModel, s: readonly number[]): Record<string, number> {
  const depths = callDepths(network);
  const order = network.services
    .map((_, i) => i)
    .sort((a, b) => (depths[b] ?? 0) - (depths[a] ?? 0));
  const result: Record<string, number> = {};
  network.classes.forEach((cls, p) => {
    const success = new Array<number>(network.services.length).fill(1);
    const callsSucceed = (calls: readonly { to: number; n: number; classIndex?: number }[]) =>
      calls
        .filter((c) => c.classIndex === undefined || c.classIndex === p)
        .reduce((w, c) => w * (success[c.to] ?? 1) ** c.n, 1);
    for (const j of order) {
      const service = network.services[j] as NetworkService;
      const branches = service.branches ?? [];
      const leftover = 1 - branches.reduce((sum, b) => sum + b.p, 0);
      const branchWork =
        branches.length === 0
          ? 1
          : Math.max(leftover, 0) + branches.reduce((w, b) => w + b.p * callsSucceed(b.calls), 0);
      const q = (1 - (s[j] ?? 0)) * callsSucceed(service.calls ?? []) * branchWork;
      const k = service.retryLimits[p] ?? cls.retryLimit;
      success[j] = 1 - (1 - q) ** (k + 1);
    }
    let gamma = 0;
    let failed = 0;
    network.services.forEach((service, i) => {
      const g = service.arrivals[p] ?? 0;
      gamma += g;
      failed += g * (1 - (success[i] ?? 1));
    });
    result[cls.name] = gamma > 0 ? failed / gamma : Number.NaN;
  });
  return result;
}
