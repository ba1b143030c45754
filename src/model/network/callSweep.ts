import { mm1mMeanSojourn, mm1mSojournTail } from '../queue/mm1mSojourn.js';
import {
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
  /** Per cell: mean duration of an accepted attempt's calls when they succeed, in seconds. */
  readonly callsTime: Float64Array;
  /** Per cell: mean duration of a call that succeeds first time (sojourn + its calls), seconds. */
  readonly callTime: Float64Array;
  /** Whether the network has any per-try timeout (else τ = 0 and times are not needed). */
  readonly timed: boolean;
  /** Per service: whether a call into it has a per-try timeout. */
  readonly timedService: Uint8Array;
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

  constructor(plan: CallPlan) {
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
      out[j] = this.timedService[j] ? Math.log(this.rho[j] as number) : (this.s[j] as number);
  }

  /** Sets the state from mixed coordinates (see {@link readState}), kept in range. */
  writeState(values: Float64Array): void {
    const plan = this.plan;
    for (let j = 0; j < plan.serviceCount; j++) {
      const v = values[j] as number;
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

  /** Attempts per second at cell (calls × attempts per call). */
  attempts(cell: number): number {
    return (this.callsIn[cell] as number) * (this.attemptsPerCall[cell] as number);
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
    const s = rho === Number.POSITIVE_INFINITY ? 1 : (plan.phi[j] as (r: number) => number)(rho);
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
    return timedServiceLoadBy(view, start, this.localResidual);
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
        all *= n === 1 ? S : S ** n;
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
        const child = (plan.callTo[c] as number) * P + p;
        const S = this.callSuccess[child] as number;
        const n = plan.callCount[c] as number;
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
