import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { AndersonMixer } from '../numeric/anderson.js';
import { type LevelQbd, solveLevelQbd } from '../numeric/levelQbd.js';
import { levelQbdHittingTimes, meanHittingTime } from '../numeric/levelQbdHitting.js';
import { checkRetryingService } from './checkRetryingService.js';
import { dispersedOrbitLaw } from './dispersedOrbitLaw.js';
import type { OrbitClass } from './OrbitClass.js';
import type { OrbitClassFigures, OrbitFigures, OrbitMode, OrbitService } from './OrbitFigures.js';
import { orbitFailedShare } from './orbitFailedShare.js';
import { fateTable } from './orbitFates.js';
import { levelMixChange, levelMixes } from './orbitLevelMix.js';
import { levelMarginal, massOf, metastableTrough, peakOf } from './orbitMarginal.js';
import { backoffOf, mixAt, type OrbitMix, orbitMix } from './orbitMix.js';
import { lastsAsState, orbitTurnover } from './orbitTurnover.js';

/**
 * The second-order law of one service with retries and per-try timeouts (docs/model.md, "The
 * orbit law"): the mean-field law takes the queue at its stationary law for the mean offered load,
 * while the retry load itself swings — more requests waiting to retry send more retries, which
 * fill the queue, time out and wait to retry in turn. Here the requests waiting to retry (the
 * *orbit*, n) and the attempts in the M/M/1/m queue (L, live or abandoned: the server does the
 * abandoned work) are one Markov chain, a level-dependent quasi-birth–death process with level n
 * and phase L, solved exactly (`solveLevelQbd`):
 * - a fresh request of class p (rate λ_p) or a retry (rate n · v for the orbit's mix v) finding
 *   L < m is accepted, L → L + 1; finding m it is rejected;
 * - an accepted attempt's fate is decided as it arrives from the L it finds: it times out with
 *   θ_p(L) = P(Erlang(L + 1, μ) > T_p) = P(Poisson(μT_p) ≤ L) for a fixed timeout (the server is
 *   FCFS and does every attempt, so that is its fate exactly), 1 − (1 + 1/(μT̄_p))^(−(L+1)) for
 *   an exponentially distributed one;
 * - a failed attempt (rejected, or fated to time out) whose request has retries left puts it in
 *   the orbit (n → n + 1 for a fresh one; a retry stays there, one retry more); one with none
 *   left gives up; a retry that succeeds leaves the orbit (n → n − 1);
 * - the server completes one attempt at rate μ (L → L − 1).
 * Two approximations: a request fated to time out enters the orbit as its attempt is accepted,
 * not T later; and which class and how many retries used a request in the orbit has is not kept
 * per state but as the orbit's mean mix, found by fixed-point iteration (exact for one class with
 * k = 1, where every request in the orbit is on its last try).
 */
export type { OrbitClass } from './OrbitClass.js';
export type {
  OrbitClassFigures,
  OrbitFigures,
  OrbitMode,
  OrbitService,
} from './OrbitFigures.js';
export { metastableTrough } from './orbitMarginal.js';

/**
 * The most work, levels · (m + 1)³, for which `auto` solves the joint chain (a few seconds);
 * beyond, the dispersed law.
 */
export const CHAIN_WORK_BUDGET = 1e8;

/** The first level the chain is cut at in the search for a healthy state the law hides. */
const FIRST_CUT = 16;
/** A cut chain whose top tenth holds less than this has confined itself below the cut. */
const CONFINED_TOP_MASS = 1e-6;

/** Passes of the per-level mix (`mix: 'level'`) at most, and the change that ends them. */
const MAX_LEVEL_MIX_PASSES = 30;
const LEVEL_MIX_TOLERANCE = 1e-6;
/** Iterations of the orbit's mix at most. */
const MAX_MIX_ITERATIONS = 30;
/**
 * The mix is settled when no class's failure probabilities move by more than this. Where a
 * service is bistable its stationary law weighs two states whose balance is exponentially
 * sensitive, and the failure probabilities of the whole law move by about 1e-5 from one solve
 * to the next however close the mix: tighter would not settle, and the figures are read to four
 * decimals.
 */
const MIX_TOLERANCE = 1e-5;
/** Below this change, passes that do not halve it STALL_ITERATIONS times in a row end the mix. */
const STALL_FLOOR = 1e-3;
const STALL_ITERATIONS = 6;
/** The top tenth of the levels must hold less than this, else the levels are doubled. */
const TOP_MASS_TOLERANCE = 1e-10;

/**
 * The orbit law's stationary figures of one service (see {@link OrbitService}).
 * @throws RangeError on bad input.
 */
export function orbitQueue(service: Readonly<OrbitService>): OrbitFigures {
  const { capacity: mu, queue: m, classes } = service;
  checkService(service);
  const phases = m + 1;
  const classCount = classes.length;
  // θ_p(L): the probability an attempt accepted with L ahead of it times out.
  const fated = classes.map((entry) => fateTable(entry, m));
  // f_p(L): the probability an attempt arriving at L fails (rejected at L = m).
  const failAt = (p: number, L: number) =>
    L === m ? 1 : ((fated[p] as Float64Array)[L] as number);

  // How long a state must last to be one (see `lastsAsState`).
  const turnover = orbitTurnover(classes);
  // No class that can retry: nothing ever enters the orbit, one level.
  const retrying = classes.some((entry) => entry.retryLimit > 0 && entry.arrivalRate > 0);
  // `auto` leaves the chain for good once the levels it needs pass the budget (the law's
  // figures then come from one solver throughout).
  const chosen = service.solver ?? 'auto';
  const solverFor = (levels: number): 'chain' | 'dispersed' =>
    chosen !== 'auto' ? chosen : levels * phases ** 3 <= CHAIN_WORK_BUDGET ? 'chain' : 'dispersed';
  let solver = solverFor(retrying ? initialLevels(classes) : 0);
  // The whole law: levels doubled until the top tenth holds next to nothing; failure
  // probabilities of one half to start.
  const whole = settleMix(retrying ? initialLevels(classes) : 0, false, 0.5);
  const settled = whole.result;
  const levels = whole.levels;
  const marginal = levelMarginal(settled.pi);
  const trough = metastableTrough(marginal);
  const modes: OrbitMode[] =
    trough === undefined ? [modeOf(settled, 0, levels)] : splitModes(trough);
  // A healthy state the whole law cannot show: where a retry storm holds all but a rounding
  // error of the mass, the law's low levels are that error, yet a service started idle may stay
  // healthy for far longer than it is watched. The chain cut at a level below the storm, with
  // the mix of the requests below it, is that state's law where it confines itself (its top
  // tenth holding under CONFINED_TOP_MASS): the law conditioned on not having tipped.
  const lowest = modes[0] as OrbitMode;
  if (retrying && trough === undefined && lowest.meanOrbit > 2 * FIRST_CUT) {
    for (let cut = FIRST_CUT; 2 * cut <= lowest.meanOrbit; cut *= 2) {
      const confined = settleMix(cut, true, undefined);
      if (!(confined.result.topMass < CONFINED_TOP_MASS)) continue;
      const leaving = escapeOf(confined.result, walkOf(cut, confined.result.mix), cut, cut, 'up');
      if (!lastsAsState(leaving.escapeTime, turnover)) break;
      // Its weight in the whole law is at most a rounding error of it (clamped to [0, 1]).
      const weight = Math.min(Math.max(massOf(marginal, 0, cut), 0), 1);
      modes.splice(
        0,
        1,
        { ...modeOf(confined.result, 0, cut), weight, ...leaving },
        {
          ...modeOf(settled, cut, levels),
          weight: 1 - weight,
          ...escapeOf(settled, walkOf(levels, settled.mix), cut, peakOf(marginal, 0, cut), 'down'),
        },
      );
      break;
    }
  }
  return {
    ...settled.figures,
    iterations: whole.iterations,
    modes,
    orbitLaw: Array.from(marginal),
  };

  /**
   * The two metastable states either side of `trough`, each the chain confined to its side
   * (reflected at the trough) with the mix of its own requests — a storm's requests are deep in
   * their retries, a healthy state's on their first — and its escape time in the chain driven
   * by that mix (the dispersed law's birth–death walk where it is the solver).
   */
  function splitModes(trough: number): OrbitMode[] {
    const stormPeak = peakOf(marginal, trough, levels);
    const healthyPeak = peakOf(marginal, 0, trough);
    const partStart = (from: number, to: number) => {
      const part = figuresOf(settled.pi, levels, settled.mix, from, to);
      return { freshFail: part.freshFail, retryFail: part.retryFail };
    };
    const upper = settleMix(levels, true, partStart(trough, levels), trough).result;
    // The healthy side cut at the trough with its own mix; where that mix piles the cut law
    // against the trough (a cut far above the healthy well lets the mix drift towards the
    // storm's), the whole law's part below the trough instead.
    const cutLaw = settleMix(trough, true, partStart(0, trough)).result;
    const lower = peakOf(levelMarginal(cutLaw.pi), 0, trough) < trough ? cutLaw : settled;
    // A storm whose own mix leaves it no peak is no state: its requests, read with their own
    // retries, give up faster than fresh failures refill it, and it drains within moments.
    if (!(peakOf(levelMarginal(upper.pi), trough, levels) > trough))
      return [{ ...modeOf(lower, 0, trough), weight: 1 }];
    const healthy = escapeOf(lower, walkOf(levels, lower.mix), trough + 1, stormPeak, 'up');
    const storm = escapeOf(upper, walkOf(levels, upper.mix), trough, healthyPeak, 'down');
    // A healthy side left within a few turnovers of the orbit is the passage to the storm, not a
    // state: the storm, read with its own mix, is the one state. (Not the other way round: on the
    // timeout validation's grid, 2 s backoffs, the storms the rule would drop are ones the runs
    // stay in — the escape time read from the storm's side is the law's shorter estimate.)
    if (!lastsAsState(healthy.escapeTime, turnover))
      return [{ ...modeOf(upper, trough, levels), weight: 1 }];
    // The long run alternates between the two: each state's share of it is its mean sojourn's
    // (renewal), where both are known; else the whole law's mass on its side.
    const th = healthy.escapeTime;
    const ts = storm.escapeTime;
    const healthyWeight =
      th !== undefined && ts !== undefined ? th / (th + ts) : massOf(marginal, 0, trough - 1);
    return [
      { ...modeOf(lower, 0, trough), weight: healthyWeight, ...healthy },
      { ...modeOf(upper, trough, levels), weight: 1 - healthyWeight, ...storm },
    ];
  }

  /**
   * The law's fixed point in the orbit's mix (the failure probabilities of fresh attempts and
   * retries it is made from, starting at `start` — one for all, or per class — or where a fresh
   * attempt meets an idle queue when undefined), on `firstLevels` levels: doubled while the top
   * tenth holds more than {@link TOP_MASS_TOLERANCE} and trimmed where the law has no mass,
   * unless `cut` (the chain reflected at the level given: a conditioned law). With `mixFrom`,
   * the mix is that of the requests on the levels from it up (a storm's own), the chain whole.
   */
  function settleMix(
    firstLevels: number,
    cut: boolean,
    start: number | { freshFail: Float64Array; retryFail: Float64Array } | undefined,
    mixFrom = 0,
  ) {
    let freshFail = new Float64Array(classCount);
    let retryFail: Float64Array;
    if (typeof start === 'object') {
      freshFail = Float64Array.from(start.freshFail);
      retryFail = Float64Array.from(start.retryFail);
    } else {
      for (let p = 0; p < classCount; p++) freshFail[p] = start ?? failAt(p, 0);
      retryFail = Float64Array.from(freshFail);
    }
    let levels = firstLevels;
    let result: ReturnType<typeof solveAt> | undefined;
    let iterations = 0;
    const mixer = new AndersonMixer(2 * classCount, 4);
    const current = new Float64Array(2 * classCount);
    const image = new Float64Array(2 * classCount);
    let bestMoved = Number.POSITIVE_INFINITY;
    let bestAt = 0;
    for (; iterations < MAX_MIX_ITERATIONS; iterations++) {
      try {
        result = solveAt(levels, orbitMix(classes, freshFail, retryFail));
      } catch (error) {
        // An extrapolated mix (say no retry ever the last) can leave the chain's top levels with
        // no way down to double precision, a singular block: a plain step from the last law's own
        // failure probabilities instead, and the mixing started afresh.
        if (!(error instanceof RangeError) || result === undefined) throw error;
        mixer.reset();
        freshFail = Float64Array.from(result.freshFail);
        retryFail = Float64Array.from(result.retryFail);
        result = solveAt(levels, orbitMix(classes, freshFail, retryFail));
      }
      while (!cut && retrying && result.topMass > TOP_MASS_TOLERANCE && levels < 1 << 16) {
        levels *= 2;
        if (solver === 'chain') solver = solverFor(levels);
        result = solveAt(levels, result.mix);
      }
      const own = mixFrom > 0 ? figuresOf(result.pi, levels, result.mix, mixFrom, levels) : result;
      let moved = 0;
      for (let p = 0; p < classCount; p++) {
        moved = Math.max(
          moved,
          Math.abs((own.freshFail[p] as number) - (freshFail[p] as number)),
          Math.abs((own.retryFail[p] as number) - (retryFail[p] as number)),
        );
      }
      // Settled; or stuck at the noise floor of a bistable service's law (no halving of the
      // change in STALL_ITERATIONS passes once it is below STALL_FLOOR): further passes only
      // cost time.
      if (moved < bestMoved / 2) {
        bestMoved = moved;
        bestAt = iterations;
      }
      const stalled = bestMoved < STALL_FLOOR && iterations - bestAt >= STALL_ITERATIONS;
      if (moved < MIX_TOLERANCE || stalled) break;
      // Anderson acceleration of the map (F0, Fr) ↦ the law's own (F0, Fr): plain steps
      // oscillate where the mix swings the queue (each solve overshoots the last), and damping
      // them crawls.
      for (let p = 0; p < classCount; p++) {
        current[p] = freshFail[p] as number;
        current[classCount + p] = retryFail[p] as number;
        image[p] = own.freshFail[p] as number;
        image[classCount + p] = own.retryFail[p] as number;
      }
      mixer.step(current, image, current);
      freshFail = new Float64Array(classCount);
      retryFail = new Float64Array(classCount);
      for (let p = 0; p < classCount; p++) {
        freshFail[p] = Math.min(Math.max(current[p] as number, 0), 1);
        retryFail[p] = Math.min(Math.max(current[classCount + p] as number, 0), 1);
      }
      // Fewer levels where the law has no mass (the first guesses may have asked for many).
      if (retrying && !cut) levels = Math.max(levels >= 64 ? usedLevels(result.pi) : levels, 32);
    }
    if (result === undefined) throw new Error('unreachable');
    // The mix per level (`mix: 'level'`): from the mean mix's law, each level's own mix, solved
    // again until no level that holds mass changes its mix by more than LEVEL_MIX_TOLERANCE.
    if (service.mix === 'level' && retrying) {
      let before: readonly OrbitMix[] | undefined;
      for (let pass = 0; pass < MAX_LEVEL_MIX_PASSES; pass++) {
        const byLevel = levelMixes(result.pi, classes, failAt);
        if (
          before !== undefined &&
          levelMixChange(before, byLevel, result.pi) < LEVEL_MIX_TOLERANCE
        )
          break;
        result = solveAt(levels, { ...result.mix, byLevel });
        before = byLevel;
      }
    }
    return { result, levels, iterations };
  }

  /**
   * The mean time for the law's part below `divide` (`up`) or above it (`down`) to reach
   * `target`, the other state's peak: to tip all the way, not merely to touch the divide.
   */
  function escapeOf(
    law: ReturnType<typeof solveAt>,
    chain: LevelQbd,
    divide: number,
    target: number,
    direction: 'up' | 'down',
  ): { escapeTime?: number } {
    if (direction === 'down' && target >= chain.levels) return {};
    if (direction === 'up' && (target < 1 || target > chain.levels)) return {};
    const h = levelQbdHittingTimes(chain, target, direction);
    // From the law's states on the escaping side of `divide` (the level `divide` excluded).
    const start = h.map((times, n) =>
      (direction === 'up' ? n < divide : n > divide) ? times : undefined,
    );
    // On a walk of one phase a level, the law's level marginal.
    const pi =
      chain.phases === phases
        ? law.pi
        : law.pi.map((level) => Float64Array.of(level.reduce((a, b) => a + b, 0)));
    const time = meanHittingTime(pi, start);
    return Number.isFinite(time) ? { escapeTime: time } : {};
  }

  /**
   * What the orbit moves on for the `mix`, to read passage times: the chain on `levels` levels,
   * or the dispersed law's birth–death walk (one phase a level).
   */
  function walkOf(levels: number, mix: OrbitMix): LevelQbd {
    if (solver === 'chain') return chainOf(levels, mix);
    const { births, deaths } = dispersedOrbitLaw({
      capacity: mu,
      queue: m,
      classes,
      failAt,
      mix,
      levels,
    });
    return {
      phases: 1,
      levels,
      up: (n) => Float64Array.of(births[n] as number),
      down: (n) => Float64Array.of(deaths[n] as number),
      within: () => new Float64Array(1),
    };
  }

  function modeOf(law: ReturnType<typeof solveAt>, from: number, to: number): OrbitMode {
    const part = figuresOf(law.pi, law.figures.levels, law.mix, from, to);
    const walk = walkOf(law.figures.levels, law.mix);
    return {
      classes: part.figures.classes,
      offeredLoad: part.figures.offeredLoad,
      meanOrbit: part.figures.meanOrbit,
      weight: part.mass,
      levels: [from, to],
      failedShares: orbitFailedShare({ pi: law.pi, walk, from, to, classes, mix: law.mix, failAt }),
    };
  }

  /** The law on `levels` levels for the orbit's `mix`: the chain solved, or the dispersed law. */
  function solveAt(levels: number, mix: OrbitMix) {
    if (solver === 'dispersed') {
      const { pi } = dispersedOrbitLaw({ capacity: mu, queue: m, classes, failAt, mix, levels });
      return { ...figuresOf(pi, levels, mix), pi, mix };
    }
    const { pi } = solveLevelQbd(chainOf(levels, mix));
    return { ...figuresOf(pi, levels, mix), pi, mix };
  }

  /** The chain's blocks on `levels` levels for the orbit's `mix`. */
  function chainOf(levels: number, mix: OrbitMix): LevelQbd {
    const size = phases * phases;
    // Fresh arrivals: up when they fail with retries left, else within the level.
    const freshUp = new Float64Array(size);
    const freshWithin = new Float64Array(size);
    classes.forEach((entry, p) => {
      const lambda = entry.arrivalRate;
      if (lambda <= 0) return;
      for (let L = 0; L < m; L++) {
        const t = failAt(p, L);
        if (entry.retryLimit > 0) {
          freshUp[L * phases + L + 1] = (freshUp[L * phases + L + 1] as number) + lambda * t;
          freshWithin[L * phases + L + 1] =
            (freshWithin[L * phases + L + 1] as number) + lambda * (1 - t);
        } else {
          freshWithin[L * phases + L + 1] = (freshWithin[L * phases + L + 1] as number) + lambda;
        }
      }
      // Rejected at L = m: into the orbit, or given up (no change of state).
      if (entry.retryLimit > 0)
        freshUp[m * phases + m] = (freshUp[m * phases + m] as number) + lambda;
    });
    // Per request in the orbit: retries that leave it (success, or a last try's failure) and
    // retries that stay (a failure with retries left), by phase — per level where the mix is.
    const flowsAt = (n: number) => {
      const leave = new Float64Array(size);
      const stay = new Float64Array(size);
      const here = mixAt(mix, n);
      for (let p = 0; p < classCount; p++) {
        const v = here.rate[p] as number;
        if (v <= 0) continue;
        const last = here.last[p] as number;
        for (let L = 0; L <= m; L++) {
          const to = L < m ? L + 1 : m;
          const t = failAt(p, L);
          // Success: leaves. Failure: the last try leaves (gives up), another stays.
          leave[L * phases + to] = (leave[L * phases + to] as number) + v * (1 - t + t * last);
          if (L < m) stay[L * phases + to] = (stay[L * phases + to] as number) + v * t * (1 - last);
        }
      }
      return { leave, stay };
    };
    const shared = mix.byLevel === undefined ? flowsAt(0) : undefined;
    // Per level: the blocks are read down(n) then within(n) (`qbdBlocks`), so the last level's
    // flows are kept for the second.
    let lastLevel = -1;
    let lastFlows: ReturnType<typeof flowsAt> | undefined;
    const flowsOf = (n: number) => {
      if (shared !== undefined) return shared;
      if (n !== lastLevel || lastFlows === undefined) {
        lastFlows = flowsAt(n);
        lastLevel = n;
      }
      return lastFlows;
    };
    const service = new Float64Array(size);
    for (let L = 1; L <= m; L++) service[L * phases + L - 1] = mu;
    const within = (n: number) => {
      const { stay } = flowsOf(n);
      const block = Float64Array.from(service);
      for (let k = 0; k < size; k++)
        block[k] = (block[k] as number) + (freshWithin[k] as number) + n * (stay[k] as number);
      // A retry staying in the orbit at L = m changes nothing: no transition.
      return block;
    };
    const up = () => freshUp;
    const down = (n: number) => {
      const { leave } = flowsOf(n);
      const block = new Float64Array(size);
      for (let k = 0; k < size; k++) block[k] = n * (leave[k] as number);
      return block;
    };
    return { phases, levels, up, down, within };
  }

  /** The figures of the stationary law π, or of π conditioned on the levels [from, to]. */
  function figuresOf(
    pi: readonly Float64Array[],
    levels: number,
    mix: OrbitMix,
    from = 0,
    to = levels,
  ) {
    let mass = 0;
    for (let n = from; n <= to; n++) for (const w of pi[n] as Float64Array) mass += w;
    // Per class: fresh attempts, fresh failures, retry attempts, retry failures, and of each
    // attempt kind the rejections on arrival.
    const freshRate = new Float64Array(classCount);
    const freshFailRate = new Float64Array(classCount);
    const freshRejected = new Float64Array(classCount);
    const retryRate = new Float64Array(classCount);
    const retryFailRate = new Float64Array(classCount);
    const retryRejected = new Float64Array(classCount);
    // Per class: last tries failing (give-ups from the orbit), per second.
    const retryGiveUps = new Float64Array(classCount);
    let meanOrbit = 0;
    let topMass = 0;
    const topFrom = Math.floor(levels * 0.9);
    pi.forEach((level, n) => {
      if (n < from || n > to) return;
      for (let L = 0; L <= m; L++) {
        const w = (level[L] as number) / mass;
        if (w === 0) continue;
        meanOrbit += w * n;
        if (n >= topFrom && n > 0) topMass += w;
        for (let p = 0; p < classCount; p++) {
          const t = failAt(p, L);
          const lambda = (classes[p] as OrbitClass).arrivalRate;
          freshRate[p] = (freshRate[p] as number) + w * lambda;
          freshFailRate[p] = (freshFailRate[p] as number) + w * lambda * t;
          if (L === m) freshRejected[p] = (freshRejected[p] as number) + w * lambda;
          const here = mixAt(mix, n);
          const r = w * n * (here.rate[p] as number);
          retryRate[p] = (retryRate[p] as number) + r;
          retryFailRate[p] = (retryFailRate[p] as number) + r * t;
          retryGiveUps[p] = (retryGiveUps[p] as number) + r * t * (here.last[p] as number);
          if (L === m) retryRejected[p] = (retryRejected[p] as number) + r;
        }
      }
    });
    let attemptRate = 0;
    const figures = classes.map((entry, p): OrbitClassFigures => {
      const lambda = entry.arrivalRate;
      const attempts = (freshRate[p] as number) + (retryRate[p] as number);
      attemptRate += attempts;
      const rejected = (freshRejected[p] as number) + (retryRejected[p] as number);
      const failed = (freshFailRate[p] as number) + (retryFailRate[p] as number);
      const accepted = attempts - rejected;
      // Give-ups: a fresh attempt's failure when k = 0, and a last retry's failure.
      const giveUps =
        entry.retryLimit === 0
          ? (freshFailRate[p] as number)
          : mix.byLevel === undefined
            ? (retryFailRate[p] as number) * (mix.last[p] as number)
            : (retryGiveUps[p] as number);
      return {
        // One side of a trough is not in balance on its own (flow crosses the trough), so a
        // storm's give-ups can pass its arrivals by a hair: R is capped at 1.
        requestRejection: lambda > 0 ? Math.min(giveUps / lambda, 1) : 0,
        attemptRejection: attempts > 0 ? rejected / attempts : 0,
        timeoutShare: accepted > 0 ? (failed - rejected) / accepted : 0,
        attemptsPerRequest: lambda > 0 ? attempts / lambda : 0,
      };
    });
    const freshFail = new Float64Array(classCount);
    const retryFail = new Float64Array(classCount);
    for (let p = 0; p < classCount; p++) {
      const fr = freshRate[p] as number;
      freshFail[p] = fr > 0 ? (freshFailRate[p] as number) / fr : 0;
      const rr = retryRate[p] as number;
      // Before any request is in the orbit, a retry would meet the queue a fresh one meets.
      retryFail[p] = rr > 0 ? (retryFailRate[p] as number) / rr : (freshFail[p] as number);
    }
    return {
      freshFail,
      retryFail,
      topMass,
      mass,
      figures: {
        classes: figures,
        offeredLoad: attemptRate / mu,
        meanOrbit,
        levels,
        topMass,
      },
    };
  }
}

/**
 * Levels enough for π: twice the highest level holding more than 1e-30 of the peak level's
 * mass, so a re-solve keeps every level that matters and a margin for the truncation test.
 */
function usedLevels(pi: readonly Float64Array[]): number {
  const marginal = levelMarginal(pi);
  let peak = 0;
  for (const w of marginal) peak = Math.max(peak, w);
  let last = 0;
  marginal.forEach((w, n) => {
    if (w > 1e-30 * peak) last = n;
  });
  return Math.min(pi.length - 1, Math.ceil(last * 1.25) + 16);
}

/** A first number of orbit levels: a few times the orbit a request would fill at worst. */
function initialLevels(classes: readonly OrbitClass[]): number {
  let most = 0;
  for (const entry of classes) {
    for (let r = 1; r <= entry.retryLimit; r++) most += entry.arrivalRate * backoffOf(entry, r);
  }
  return Math.max(32, Math.ceil(2 * most) + 16);
}

function checkService(service: Readonly<OrbitService>): void {
  checkRetryingService(service);
  if (service.mix !== undefined && service.mix !== 'mean' && service.mix !== 'level') {
    throw new InvalidArgumentError(
      `mix should be 'mean' or 'level', got ${JSON.stringify(service.mix)}`,
    );
  }
  service.classes.forEach((entry, p) => {
    const stages = entry.timeoutStages;
    if (
      entry.timeoutLaw === 'erlang' &&
      !(stages === undefined || (Number.isInteger(stages) && stages >= 1))
    ) {
      throw new InvalidArgumentError(
        `classes[${p}].timeoutStages should be an integer ≥ 1, got ${stages}`,
      );
    }
    const means = typeof entry.meanBackoff === 'number' ? [entry.meanBackoff] : entry.meanBackoff;
    if (means.length === 0 || !means.every((d) => Number.isFinite(d) && d > 0)) {
      throw new InvalidArgumentError(
        `classes[${p}].meanBackoff should be positive numbers of seconds, got ${JSON.stringify(entry.meanBackoff)}`,
      );
    }
  });
}
