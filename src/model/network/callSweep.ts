import { freshRejection } from '../phi/followUps.js';
import { mm1mMeanSojourn, mm1mSojournTail } from '../queue/mm1mSojourn.js';
import {
  attemptsPerRequestAt,
  hopSuccess,
  type TimedServiceLoad,
  timedLoadResidual,
  timedServiceLoadBy,
} from '../queue/timedServiceLoad.js';
import type { CallPlan } from './callPlan.js';

/**
 * The state of a call-graph network at given offered loads ρ_j, and one sweep of the solver's
 * map ρ ↦ ρ' (docs/model.md, "A network, call-graph form"). Every table is per cell
 * (`j * classCount + p`) in a typed array, reused between sweeps.
 *
 * A sweep is two passes, both iterative and O(calls):
 * 1. bottom-up (children before parents), from the current ρ: s_j = φ_j(ρ_j), the probability
 *    W that an accepted attempt's calls all succeed, its timeout probability τ, one attempt's
 *    success q = (1 − s)(1 − τ)W, a call's success S = 1 − (1 − q)^(k+1) and attempts A = S/q;
 * 2. top-down (parents before children): the calls arriving at j are final once its callers are
 *    done, so j's own offered load is solved locally — ρ_j = Σ_p calls_j^p A_j^p(ρ_j)/μ_j with W
 *    held — and j's accepted attempts hand their calls to its children.
 *
 * The local equation's right side T(ρ) rises with ρ (more rejection and more timeouts, more
 * attempts), so from the current ρ_j the local root is the first one met moving in the
 * direction of T(ρ_j) − ρ_j: the state a service's own queue relaxes to. Without timeouts the
 * local root is unique (accepted attempts fall and the queue's throughput rises with ρ).
 */
export class CallSweep {
  readonly plan: CallPlan;
  /** Offered load per service (attempts / μ). */
  readonly rho: Float64Array;
  /** Attempt rejection per service, φ_j(ρ_j). */
  readonly s: Float64Array;
  /** Per cell: probability that an accepted attempt's calls all succeed. */
  readonly work: Float64Array;
  /** Per cell: probability that an accepted attempt outlives its caller's per-try timeout. */
  readonly abandoned: Float64Array;
  /** Per cell: one attempt's success probability q. */
  readonly attemptSuccess: Float64Array;
  /** Per cell: a call's success within the hop's retries, S. */
  readonly callSuccess: Float64Array;
  /** Per cell: attempts per call, A. */
  readonly attemptsPerCall: Float64Array;
  /** Per cell: calls per second arriving. */
  readonly callsIn: Float64Array;
  /**
   * Per cell: the calls of {@link callsIn} that are *follow-ups* — the next of a caller's
   * sequential calls to a service that makes no calls of its own, sent the moment the one before
   * came back (docs/model.md, "Follow-up calls"). Only at {@link followed} services, else 0.
   */
  readonly followCalls: Float64Array;
  /**
   * Per service, with `followUps` (`NetworkModel.followUps`): whether callers send it
   * follow-ups — it makes no calls, no call to it has a per-try timeout, and some caller calls
   * it n ≥ 2 times in a row (or in two sequential calls of one run). There `s` is π, the
   * rejection of a *fresh* attempt (first calls, retries, other callers), and
   * {@link attemptRejection} that of every attempt. Elsewhere both are φ_j(ρ_j).
   */
  readonly followed: Uint8Array;
  /** Per cell: mean duration of an accepted attempt's calls when they succeed, in seconds. */
  readonly callsTime: Float64Array;
  /** Per cell: mean duration of a call that succeeds first time (sojourn + its calls), seconds. */
  readonly callTime: Float64Array;
  /** Whether the network has any per-try timeout (else τ = 0 and times are not needed). */
  readonly timed: boolean;
  /** Per service: whether a call into it has a per-try timeout. */
  readonly timedService: Uint8Array;
  /**
   * Per service, its place among the mixing coordinates ({@link readState}): the service's index
   * in the network as its caller numbered it, where the plan was compiled from the network laid
   * out top-down (`topDownLayout`). The mixing and Newton's sums then run over the services in
   * the caller's order, as without the layout, so the layout changes no result in any bit.
   */
  private readonly coordinate: Int32Array;
  /** Per mixing coordinate: whether it is ln ρ (a per-try timeout into the service), else s. */
  readonly logCoordinate: Uint8Array;
  /** Sweeps made so far (see {@link sweep}). */
  sweeps = 0;
  /**
   * Called with {@link sweeps} at every `every`-th sweep, when set: the progress of a long
   * analysis. Unset, a sweep only counts.
   */
  progress: { readonly every: number; readonly report: (sweeps: number) => void } | undefined;
  /** Scratch: a service's τ per class before its local solve. */
  private readonly oldTau: Float64Array;
  /** The service whose local load is being solved (moved from service to service). */
  private readonly localView: { -readonly [K in keyof TimedServiceLoad]: TimedServiceLoad[K] };
  /** h(ρ) of {@link localView}, made once: no closure or look-up per solve. */
  private readonly localResidual: (rho: number) => number;
  /** Per call: its first call follows the call before it in the run (sequential, same service). */
  private readonly callFollows: Uint8Array;
  /** The law and the follow-ups' load ρ_f of the followed service being solved. */
  private localPhi: (rho: number) => number;
  private localFollowLoad = 0;
  /** h(ρ) of a followed service (see {@link followedOfferedLoad}), made once. */
  private readonly followedResidual: (rho: number) => number;

  /**
   * @param coordinates - per service of `plan`, its mixing coordinate (see {@link coordinate});
   *   default its own index.
   */
  constructor(plan: CallPlan, coordinates?: Int32Array) {
    this.plan = plan;
    const n = plan.serviceCount;
    const cells = n * plan.classCount;
    this.rho = new Float64Array(n);
    this.s = new Float64Array(n);
    this.work = new Float64Array(cells).fill(1);
    this.abandoned = new Float64Array(cells);
    this.attemptSuccess = new Float64Array(cells).fill(1);
    this.callSuccess = new Float64Array(cells).fill(1);
    this.attemptsPerCall = new Float64Array(cells).fill(1);
    this.callsIn = new Float64Array(cells);
    this.followCalls = new Float64Array(cells);
    this.callsTime = new Float64Array(cells);
    this.callTime = new Float64Array(cells);
    this.timed = plan.timeout.some((x) => x > 0);
    this.oldTau = new Float64Array(plan.classCount);
    this.timedService = new Uint8Array(n);
    this.localView = {
      capacity: 1,
      queue: 1,
      phi: plan.phi[0] as (rho: number) => number,
      classCount: plan.classCount,
      offset: 0,
      arrivals: this.callsIn,
      retryLimits: plan.retryLimit,
      timeouts: plan.timeout,
      work: this.work,
      callsTime: this.callsTime,
    };
    this.localResidual = timedLoadResidual(this.localView);
    plan.timeout.forEach((x, cell) => {
      if (x > 0) this.timedService[Math.floor(cell / plan.classCount)] = 1;
    });
    this.callFollows = new Uint8Array(plan.callTo.length);
    this.followed = new Uint8Array(n);
    if (plan.followUps) markFollowUps(plan, this.callFollows, this.followed, this.timedService);
    this.coordinate = coordinates ?? Int32Array.from({ length: n }, (_, j) => j);
    this.logCoordinate = new Uint8Array(n);
    for (let j = 0; j < n; j++)
      this.logCoordinate[this.coordinate[j] as number] = this.timedService[j] as number;
    this.localPhi = plan.phi[0] as (rho: number) => number;
    this.followedResidual = (rho: number) => this.followedOfferedLoad(rho) - rho;
  }

  /**
   * One sweep from the current state (`s`, and `rho` where timeouts need the queue's length),
   * with every external rate × `scale`; writes the new state and returns the largest change of
   * any s_j or τ (absolute, both probabilities). `saturated` treats the current state as every
   * attempt failing (s = 1, ρ = ∞): the start of the storm branch.
   */
  sweep(scale: number, saturated = false): number {
    const plan = this.plan;
    const P = plan.classCount;
    this.sweeps++;
    if (this.progress !== undefined && this.sweeps % this.progress.every === 0)
      this.progress.report(this.sweeps);
    this.bottomUp(saturated);
    const callsIn = this.callsIn;
    for (let cell = 0; cell < callsIn.length; cell++)
      callsIn[cell] = scale * (plan.external[cell] as number);
    this.followCalls.fill(0);
    let change = 0;
    for (let t = 0; t < plan.topDown.length; t++) {
      const j = plan.topDown[t] as number;
      const oldS = this.s[j] as number;
      const next = this.localLoad(
        j,
        saturated ? Number.POSITIVE_INFINITY : (this.rho[j] as number),
      );
      if (this.timed)
        for (let p = 0; p < P; p++) this.oldTau[p] = this.abandoned[j * P + p] as number;
      this.settle(j, next);
      let d = Math.abs((this.s[j] as number) - oldS);
      if (this.timed) {
        for (let p = 0; p < P; p++)
          d = Math.max(
            d,
            Math.abs((this.abandoned[j * P + p] as number) - (this.oldTau[p] as number)),
          );
      }
      if (d > change || Number.isNaN(d)) change = d;
      for (let p = 0; p < P; p++) this.distribute(j * P + p);
    }
    return saturated ? Number.POSITIVE_INFINITY : change;
  }

  /**
   * The coordinates the solver mixes between sweeps, one per service: s_j, or ln ρ_j where a
   * per-try timeout makes τ depend on the queue's length too (0 load: −∞ is kept as 0 load).
   */
  readState(out: Float64Array): void {
    for (let j = 0; j < this.plan.serviceCount; j++)
      out[this.coordinate[j] as number] = this.timedService[j]
        ? Math.log(this.rho[j] as number)
        : (this.s[j] as number);
  }

  /** Sets the state from mixed coordinates (see {@link readState}), kept in range. */
  writeState(values: Float64Array): void {
    const plan = this.plan;
    for (let j = 0; j < plan.serviceCount; j++) {
      const v = values[this.coordinate[j] as number] as number;
      if (!Number.isFinite(v)) continue;
      if (this.timedService[j]) {
        const rho = Math.exp(v);
        this.rho[j] = rho;
        this.s[j] = (plan.phi[j] as (r: number) => number)(rho);
      } else this.s[j] = Math.min(Math.max(v, 0), 1 - Number.EPSILON);
    }
  }

  /**
   * Makes every table consistent with the current `rho` (bottom-up, then the calls top-down with
   * no local solve), so a report read afterwards describes exactly this state.
   */
  evaluate(scale: number): void {
    const plan = this.plan;
    const P = plan.classCount;
    this.bottomUp(false);
    for (let cell = 0; cell < this.callsIn.length; cell++)
      this.callsIn[cell] = scale * (plan.external[cell] as number);
    this.followCalls.fill(0);
    for (let t = 0; t < plan.topDown.length; t++) {
      const j = plan.topDown[t] as number;
      let attempts = 0;
      for (let p = 0; p < P; p++) {
        this.distribute(j * P + p);
        attempts += this.attempts(j * P + p);
      }
      // The offered load these calls make (consistent with s, also where φ is flat in ρ).
      if (!this.timedService[j]) this.rho[j] = attempts / (plan.capacity[j] as number);
    }
  }

  /**
   * How far this state is from another, given by its attempt successes q per cell: the largest
   * |Δq|. q carries s, the timeout probability and the calls' success, so two states of the same
   * s but different timeouts (a queue full of abandoned work) are told apart.
   */
  distanceTo(attemptSuccess: ArrayLike<number>): number {
    let most = 0;
    for (let cell = 0; cell < this.attemptSuccess.length; cell++) {
      const d = Math.abs((this.attemptSuccess[cell] as number) - (attemptSuccess[cell] as number));
      if (d > most) most = d;
    }
    return most;
  }

  /**
   * Attempts per second at cell: calls × attempts per call, a follow-up call one attempt (let
   * in, and with no calls below it succeeds).
   */
  attempts(cell: number): number {
    const calls = this.callsIn[cell] as number;
    const follow = this.followCalls[cell] as number;
    if (!(follow > 0)) return calls * (this.attemptsPerCall[cell] as number);
    return (calls - follow) * (this.attemptsPerCall[cell] as number) + follow;
  }

  /** Calls per second at cell that succeed within the hop's retries (every follow-up does). */
  callsOut(cell: number): number {
    const calls = this.callsIn[cell] as number;
    const follow = this.followCalls[cell] as number;
    if (!(follow > 0)) return calls * (this.callSuccess[cell] as number);
    return (calls - follow) * (this.callSuccess[cell] as number) + follow;
  }

  /**
   * The share of the calls at cell that fail after the hop's retries: 1 − S, or where follow-up
   * calls arrive (they succeed) 1 − {@link callsOut} / calls.
   */
  callRejection(cell: number): number {
    const calls = this.callsIn[cell] as number;
    if (!((this.followCalls[cell] as number) > 0 && calls > 0))
      return 1 - (this.callSuccess[cell] as number);
    return 1 - this.callsOut(cell) / calls;
  }

  /**
   * The share of every attempt at j that is rejected: s_j, or where follow-ups arrive (let in)
   * π_j times the fresh attempts' share.
   */
  attemptRejection(j: number): number {
    const s = this.s[j] as number;
    if (!this.followed[j]) return s;
    const P = this.plan.classCount;
    let attempts = 0;
    let follow = 0;
    for (let p = 0; p < P; p++) {
      attempts += this.attempts(j * P + p);
      follow += this.followCalls[j * P + p] as number;
    }
    return attempts > 0 ? (s * (attempts - follow)) / attempts : s;
  }

  /** Children before parents: s, W, the call times, τ, q, S and A from the current ρ. */
  private bottomUp(saturated: boolean): void {
    const plan = this.plan;
    const P = plan.classCount;
    for (let t = plan.topDown.length - 1; t >= 0; t--) {
      const j = plan.topDown[t] as number;
      const rho = saturated ? Number.POSITIVE_INFINITY : (this.rho[j] as number);
      const s = saturated ? 1 : (this.s[j] as number);
      for (let p = 0; p < P; p++) {
        const cell = j * P + p;
        this.work[cell] = this.programSuccess(cell);
        if (this.timed) this.callsTime[cell] = this.programTime(cell);
        this.settleCell(j, cell, s, rho);
      }
    }
  }

  /** Service j settles at offered load ρ (its cells' W and call times held): s_j = φ_j(ρ). */
  private settle(j: number, rho: number): void {
    const plan = this.plan;
    const P = plan.classCount;
    const phi = plan.phi[j] as (r: number) => number;
    const s =
      rho === Number.POSITIVE_INFINITY
        ? 1
        : this.followed[j]
          ? freshRejection(phi, rho, this.followLoad(j))
          : phi(rho);
    this.s[j] = s;
    this.rho[j] = rho;
    for (let p = 0; p < P; p++) this.settleCell(j, j * P + p, s, rho);
  }

  /**
   * One cell at attempt rejection s and offered load ρ, its W and call times held: τ, q, S, A and
   * the time of a first-time successful call.
   */
  private settleCell(j: number, cell: number, s: number, rho: number): void {
    const plan = this.plan;
    const m = plan.queue[j] as number;
    const mu = plan.capacity[j] as number;
    const tau = this.timeoutProbability(cell, rho, m, mu);
    this.abandoned[cell] = tau;
    const q = (1 - s) * (1 - tau) * (this.work[cell] as number);
    const k = plan.retryLimit[cell] as number;
    // S = 1 − (1 − q)^(k+1) and A = S/q (hopSuccess keeps a tiny q's digits: 1 − q would
    // round to 1 and A to 0 instead of k + 1).
    const success = hopSuccess(q, k);
    this.attemptSuccess[cell] = q;
    this.callSuccess[cell] = success;
    this.attemptsPerCall[cell] = q > 0 ? success / q : k + 1;
    if (this.timed)
      this.callTime[cell] = mm1mMeanSojourn(rho, m) / mu + (this.callsTime[cell] as number);
  }

  /**
   * τ at cell: the probability that an accepted attempt is not back within its per-try timeout
   * T — its sojourn at j exceeds T less the mean time its calls take (docs/model.md).
   */
  private timeoutProbability(cell: number, rho: number, m: number, mu: number): number {
    const x = this.plan.timeout[cell] as number;
    if (x <= 0) return 0;
    return mm1mSojournTail(rho, m, x - mu * (this.callsTime[cell] as number));
  }

  /**
   * The local offered load of service j given the calls arriving and its W: the root of
   * h(ρ) = Σ_p calls_p A_p(ρ)/μ − ρ met first from `start` in the direction of h(start).
   */
  private localLoad(j: number, start: number): number {
    const view = this.localView;
    view.capacity = this.plan.capacity[j] as number;
    view.queue = this.plan.queue[j] as number;
    view.phi = this.plan.phi[j] as (r: number) => number;
    view.offset = j * this.plan.classCount;
    if (!this.followed[j]) return timedServiceLoadBy(view, start, this.localResidual);
    this.localPhi = view.phi;
    this.localFollowLoad = this.followLoad(j);
    return timedServiceLoadBy(view, start, this.followedResidual);
  }

  /** ρ_f of service j: its follow-up calls (one attempt each) per second over μ_j. */
  private followLoad(j: number): number {
    const P = this.plan.classCount;
    let follow = 0;
    for (let p = 0; p < P; p++) follow += this.followCalls[j * P + p] as number;
    return follow / (this.plan.capacity[j] as number);
  }

  /**
   * T(ρ) of the followed service in {@link localView} (no calls, no per-try timeout): a fresh
   * attempt is rejected with π(ρ) (see {@link freshRejection}) and a fresh call makes
   * A(1 − π) attempts, a follow-up call one.
   */
  private followedOfferedLoad(rho: number): number {
    const view = this.localView;
    const pi = freshRejection(this.localPhi, rho, this.localFollowLoad);
    let attempts = 0;
    for (let p = 0; p < view.classCount; p++) {
      const cell = view.offset + p;
      const calls = this.callsIn[cell] as number;
      if (!(calls > 0)) continue;
      const follow = this.followCalls[cell] as number;
      const k = this.plan.retryLimit[cell] as number;
      attempts += (calls - follow) * attemptsPerRequestAt(1 - pi, k) + follow;
    }
    return attempts / view.capacity;
  }

  /** W at cell: the probability that every call of an accepted attempt succeeds. */
  private programSuccess(cell: number): number {
    const plan = this.plan;
    const P = plan.classCount;
    let success = 1;
    let branchMass = 0;
    let branchSuccess = 0;
    for (
      let seg = plan.cellSegment[cell] as number;
      seg < (plan.cellSegment[cell + 1] as number);
      seg++
    ) {
      let all = 1;
      for (
        let c = plan.segmentCall[seg] as number;
        c < (plan.segmentCall[seg + 1] as number);
        c++
      ) {
        const child = (plan.callTo[c] as number) * P + (cell % P);
        const n = plan.callCount[c] as number;
        const S = this.callSuccess[child] as number;
        // Into a followed service, calls 2 … n (and a first right after a call there) are
        // follow-ups, which succeed.
        if (this.followed[plan.callTo[c] as number] && !plan.callParallel[c]) {
          if (!this.callFollows[c]) all *= S;
        } else all *= n === 1 ? S : S ** n;
      }
      if (plan.segmentIsBranch[seg]) {
        const probability = plan.segmentProbability[seg] as number;
        branchMass += probability;
        branchSuccess += probability * all;
      } else success *= all;
    }
    return branchMass > 0 ? success * (branchSuccess + 1 - branchMass) : success;
  }

  /**
   * Mean time of an accepted attempt's calls at cell when each succeeds first time: sequential
   * calls add up, a parallel run takes its slowest mean, branches are weighted by p.
   */
  private programTime(cell: number): number {
    const plan = this.plan;
    const P = plan.classCount;
    let time = 0;
    for (
      let seg = plan.cellSegment[cell] as number;
      seg < (plan.cellSegment[cell + 1] as number);
      seg++
    ) {
      let segment = 0;
      let run = 0;
      for (
        let c = plan.segmentCall[seg] as number;
        c < (plan.segmentCall[seg + 1] as number);
        c++
      ) {
        const child = (plan.callTo[c] as number) * P + (cell % P);
        const d = this.callTime[child] as number;
        if (plan.callParallel[c]) {
          if (d > run) run = d;
          continue;
        }
        segment += run + (plan.callCount[c] as number) * d;
        run = 0;
      }
      segment += run;
      time += plan.segmentIsBranch[seg]
        ? (plan.segmentProbability[seg] as number) * segment
        : segment;
    }
    return time;
  }

  /**
   * Hands the calls of cell's accepted attempts to its children: an attempt makes calls only if
   * it was served before its caller gave up on it; a sequential call is made only while
   * everything before it succeeded; a run of parallel calls is issued together; a branch starts
   * from what survived the service's own calls, with its probability.
   */
  private distribute(cell: number): void {
    const plan = this.plan;
    const P = plan.classCount;
    const first = plan.cellSegment[cell] as number;
    const end = plan.cellSegment[cell + 1] as number;
    if (plan.segmentCall[first] === plan.segmentCall[end]) return;
    const j = (cell - (cell % P)) / P;
    const p = cell % P;
    // (A followed service makes no calls: its follow-ups never reach here.)
    let accepted = this.attempts(cell) * (1 - (this.s[j] as number));
    if (this.timed && (plan.timeout[cell] as number) > 0) {
      accepted *=
        1 -
        mm1mSojournTail(
          this.rho[j] as number,
          plan.queue[j] as number,
          plan.timeout[cell] as number,
        );
    }
    if (!(accepted > 0)) return;
    let alive = accepted;
    for (let seg = first; seg < end; seg++) {
      let flow = plan.segmentIsBranch[seg]
        ? alive * (plan.segmentProbability[seg] as number)
        : alive;
      const stop = plan.segmentCall[seg + 1] as number;
      let c = plan.segmentCall[seg] as number;
      while (c < stop) {
        if (plan.callParallel[c]) {
          let group = 1;
          while (c < stop && plan.callParallel[c]) {
            const child = (plan.callTo[c] as number) * P + p;
            const n = plan.callCount[c] as number;
            this.callsIn[child] = (this.callsIn[child] as number) + flow * n;
            const S = this.callSuccess[child] as number;
            group *= n === 1 ? S : S ** n;
            c++;
          }
          flow *= group;
          continue;
        }
        const to = plan.callTo[c] as number;
        const child = to * P + p;
        const S = this.callSuccess[child] as number;
        const n = plan.callCount[c] as number;
        if (this.followed[to]) {
          // The first call (fresh unless it follows one to the same service) is made; once it
          // succeeds the n − 1 others follow it and succeed.
          const follows = this.callFollows[c] === 1;
          const reach = follows ? 1 : S;
          const follow = (follows ? 1 : 0) + (n - 1) * reach;
          this.callsIn[child] = (this.callsIn[child] as number) + flow * (1 + (n - 1) * reach);
          this.followCalls[child] = (this.followCalls[child] as number) + flow * follow;
          flow *= reach;
          c++;
          continue;
        }
        // n sequential calls: the r-th is made if the r − 1 before it succeeded.
        let made = 0;
        let reach = 1;
        for (let r = 0; r < n; r++) {
          made += reach;
          reach *= S;
        }
        this.callsIn[child] = (this.callsIn[child] as number) + flow * made;
        flow *= reach;
        c++;
      }
      if (!plan.segmentIsBranch[seg]) alive = flow;
    }
  }
}

/**
 * Marks the follow-ups (docs/model.md, "Follow-up calls"): a service is `followed` when it makes
 * no calls, no call to it has a per-try timeout, and some run calls it sequentially n ≥ 2 times,
 * or twice in a row; per call, `follows` says that its first call comes right after a
 * sequential call to the same followed service.
 */
function markFollowUps(
  plan: CallPlan,
  follows: Uint8Array,
  followed: Uint8Array,
  timed: Uint8Array,
): void {
  const calls = new Uint8Array(plan.serviceCount);
  for (let cell = 0; cell < plan.serviceCount * plan.classCount; cell++) {
    const first = plan.segmentCall[plan.cellSegment[cell] as number] as number;
    const end = plan.segmentCall[plan.cellSegment[cell + 1] as number] as number;
    if (end > first) calls[Math.floor(cell / plan.classCount)] = 1;
  }
  const leaf = (j: number) => !calls[j] && !timed[j];
  for (let seg = 0; seg + 1 < plan.segmentCall.length; seg++) {
    const start = plan.segmentCall[seg] as number;
    for (let c = start; c < (plan.segmentCall[seg + 1] as number); c++) {
      const to = plan.callTo[c] as number;
      if (plan.callParallel[c] || !leaf(to)) continue;
      if (c > start && !plan.callParallel[c - 1] && plan.callTo[c - 1] === to) follows[c] = 1;
      if (follows[c] || (plan.callCount[c] as number) >= 2) followed[to] = 1;
    }
  }
}
