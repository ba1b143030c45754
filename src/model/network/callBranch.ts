import type { CallSweep } from './callSweep.js';
import {
  type Relaxation,
  relaxCalls,
  type Settled,
  type SettleHints,
  settleCalls,
} from './relaxCalls.js';

/**
 * A jump of some attempt success q (s, timeouts and calls together) larger than this between two
 * nearby loads is a fold, not a slope.
 */
const JUMP = 0.05;
/** Load steps, as shares of the target scale: the first and largest, and the smallest. */
const FIRST_STEP = 1 / 4;
const SMALLEST_STEP = 1 / 4096;
/**
 * Once the load has tipped, every step is this share of the scale and each is taken where it
 * settles: the later folds of a cascade are followed, not pinned (only the first tip is a figure of
 * the report), so a step is not halved for them. In the tipped state a settle costs about the same
 * whatever the step (on the 10,000-service DGG-like graphs ~1,400 sweeps), so fewer, longer steps
 * pay: against steps of 1/16, a quarter took the 1,000-service seeds 0–9 (each as generated and
 * nudged) from 44,068 to 41,077 sweeps in all (µBench-like) and from 78,536 to 63,203 (DGG-like),
 * and the 10,000-service DGG-like seeds 0, 2, 5 and 9 (as generated) from 60,960 to 26,754, with
 * the same tips; the 1,000-service states were the same to 1e-6 in every s, and so were those of
 * the 50 call-graph validation networks but one (mubench-324: another storm 1e-5 away, its
 * end-to-end figures the same to 1e-4). The worst of those 40 runs rose (DGG-like seed 6, nudged:
 * 5,823 → 9,124 sweeps, its crossing failing twice before it settled).
 */
const TIPPED_STEP = 1 / 4;
/**
 * Where even the smallest step finds no rest (the relaxation crawls through the ghost of a state
 * that has just ceased to exist), the load is taken this far past it at once (the first of these
 * shares of the scale at which the state settles), where the passage is quicker, with this many
 * times the sweeps.
 */
const PAST_FOLD_STEPS = [1 / 256, 1 / 64, 1 / 16] as const;
/**
 * The quick crossings try the longest step first, each after a failed one starting where that
 * ended once it has left the old state: just past a fold the state reached may cycle for the
 * sweeps and Newton alike, further on it settles (µBench-like seeds 3 and 8: 1/256 and 1/64
 * failed after ~1,200 sweeps each, 1/16 settled; seed 0 the other way round).
 */
const QUICK_PAST_FOLD_STEPS = [1 / 16, 1 / 64, 1 / 256] as const;
const PAST_FOLD_SWEEPS = 4;
/** Plain sweeps without a new smallest residual, once across, before the full settle takes over. */
const CROSSED_PATIENCE = 50;
/**
 * Where those stop unsettled, sweeps damped by this share follow from where they stopped, for at
 * most so many sweeps and so many without a new smallest residual, before the full settle.
 */
const CROSSING_DAMPING = 0.25;
const CROSSING_DAMPED_SWEEPS = 600;
const CROSSING_DAMPED_PATIENCE = 100;
/** Steps at most this long (share of the scale) are checked for hysteresis before halving. */
const CHECK_STEP = 1 / 64;
/**
 * Where the mixed sweeps stalled, this many settles in a row less one try Newton first; the
 * next tries the sweeps again (the state may have left the oscillating regime).
 */
const NEWTON_FIRST_RUN = 4;
/** The longest such run (doubled from {@link NEWTON_FIRST_RUN} while the sweeps stall again). */
const LONGEST_NEWTON_RUN = 32;
/**
 * Before the tip, a step's settle takes at most this many sweeps, mixed, and Newton from the
 * start (a state near the last one settles within them): a probe is halved past them, the
 * smallest step crossed. Letting the smallest step run the full settle's transient instead (1,000
 * sweeps and more, which the crossing then ran again) cost the µBench-like 1,000-service seeds
 * 0–9 (as generated and nudged) 16 % more sweeps in all, and probes of up to 1,000 sweeps (eight
 * times a slow last step's) the DGG-like worst seed 700 more; every state reached and tip the
 * same.
 */
const LOCAL_SETTLE_SWEEPS = 300;
/** A probe's sweeps: at least this many, and at most this many times the last step's. */
const PROBE_SWEEPS = 60;
const PROBE_FACTOR = 8;

/**
 * Whether the jump just taken from `before` (the state at `theta`) is a fold: from the new state,
 * lowering the load back to `theta` keeps it away from `before` — `hysteresis` where it settles
 * there, `unsettled` where it finds no rest (taken as a fold too) — or returns, a `slope`.
 * Restores the new state in `sweep` either way; `used` is told the sweeps the check made, and
 * `lowered` gets the attempt successes where the lowered load ended.
 */
function foldCheck(
  sweep: CallSweep,
  theta: number,
  before: Float64Array,
  options: { readonly tolerance?: number; readonly maxIterations?: number },
  used: (sweeps: number) => void,
  lowered: Float64Array,
): 'hysteresis' | 'unsettled' | 'slope' {
  const afterS = Float64Array.from(sweep.s);
  const afterRho = Float64Array.from(sweep.rho);
  const afterQ = Float64Array.from(sweep.attemptSuccess);
  // The full settle, the sweeps first: the question is where the relaxation goes from the new
  // state, and Newton first would find the nearest state instead (the new branch's, which the
  // hysteresis keeps alive at theta too).
  const back = settleCalls(sweep, theta, options);
  used(back.iterations);
  const distance = sweep.distanceTo(before);
  lowered.set(sweep.attemptSuccess);
  sweep.s.set(afterS);
  sweep.rho.set(afterRho);
  sweep.attemptSuccess.set(afterQ);
  if (!back.converged) return 'unsettled';
  return distance > JUMP / 2 ? 'hysteresis' : 'slope';
}

/**
 * A jump from the state at theta into a state this close (as a share of the jump) to one a
 * longer step from a lower theta jumped into, and lowering the load did not undo, is taken to be
 * the same fold: that state's branch reaches back below theta, as the check would find again.
 */
const KNOWN_SHARE = 1 / 4;

/**
 * A step to `upper` that jumped into the state of attempt successes `q`, and lowering the load
 * back settled away from the old state, in the state `lowered`: hysteresis (see
 * {@link raiseLoad}).
 */
interface Bracket {
  readonly upper: number;
  readonly q: Float64Array;
  readonly lowered: Float64Array;
}

/** What {@link raiseLoad} found. */
export interface RaisedLoad {
  /** Whether every step settled (the state at `scale` is in the sweep). */
  readonly settled: boolean;
  /** Sweeps used. */
  readonly iterations: number;
  /** The residual of the last relaxation. */
  readonly residual: number;
  /**
   * The scale at which the state first jumped (the branch it was on ended — a fold — and the
   * network tipped into another state), the last scale before the jump, pinned to 1/4096; empty
   * where it did not tip. Later folds of a cascade are not looked for: once tipped the search
   * only follows the state (an array, as the routing search's, which lists every tip).
   */
  readonly tips: readonly number[];
  /** The largest scale at which a state settled (`scale` when `settled`). */
  readonly reached?: number;
  /**
   * Whether the sweeps settle on the last state (false: Newton found it, and sweeps started
   * there leave it; see `newtonCalls`).
   */
  readonly stable?: boolean;
}

/**
 * Raises every external rate from zero to × `scale` in steps, letting the network settle at each
 * (warm-started relaxation): the state an idle network reaches as its load rises, and where on the
 * way it tips. A step that moves some attempt success q by more than 0.05 is checked by lowering
 * the load back: if that returns the old state it was a steep slope; if not, a fold lies inside the
 * step — the state the network was in has ceased to exist — and the step is halved down to 1/4096
 * of the scale to pin it down, recorded, and followed into the state the network tips into. A load
 * at which the relaxation finds no rest is approached by halved steps too. A step taken that moved
 * no q by more than 0.025 doubles the next (up to a quarter of the scale). Every step but the
 * smallest is a probe: its settle may take at most eight times the sweeps of the last step taken
 * (at least 60, at most 300) and gives up without the slow fallbacks, so a step past a fold costs
 * little before it is halved, and no longer step reaches that load again before the search has
 * passed it; the smallest step's settle asks the same within 300 sweeps (a state
 * near theta may settle there slowly: a steep slope, not a fold). Where even that finds no rest
 * (the relaxation crawls through the ghost of a state that has just vanished), the load is taken
 * 1/256, 1/64 or 1/16 further at once, a tip where the state moved away: first by plain sweeps that
 * stop 50 sweeps after their last new low once away from the old state, then sweeps damped by ¼
 * from there (plain sweeps may overshoot into a cycle the queues would not make), then the full
 * settle (Newton first) — these quick crossings take 1/16 first, and one after a failed one starts
 * where that ended once away; where none of these settles, by all the plain sweeps allowed and the
 * settle from where they end. After the sweeps stall at a load taken (around a storm) the next
 * settles try Newton first, for 4 steps, doubled up to 32 while the sweeps, tried again, stall
 * again. A jump into (near) a state a longer step jumped into and lowering did not undo is that
 * fold again, not checked twice.
 *
 * Once the load has tipped the search only follows the state: each step that settles is taken,
 * whatever it moved, each a quarter of the scale (one that does not settle is crossed as above).
 * Pinning the later folds of a cascade (one subtree tipping after another, 16–47 of them on the
 * DGG-like graphs) took most of the analysis and only listed them; the crossings already leap 1/16.
 * On the 1,000-service DGG-like seed 1 the rising load's sweeps fell from 77,660 to 3,926; the
 * state reached and the first tip are those of the search that pinned every fold on µBench-like
 * seeds 0–9, DGG-like 0–2 and the 50 call-graph validation networks (DGG-like 3–9 were compared
 * with a search pinning later folds to 1/256).
 * Leaves the state at `scale` in `sweep`.
 */
export function raiseLoad(
  sweep: CallSweep,
  scale: number,
  options: { readonly tolerance?: number; readonly maxIterations?: number } = {},
): RaisedLoad {
  const n = sweep.plan.serviceCount;
  const savedS = new Float64Array(n);
  const savedRho = new Float64Array(n);
  const savedQ = new Float64Array(sweep.attemptSuccess.length);
  // Where the last fold check's lowered load settled.
  const lowered = new Float64Array(sweep.attemptSuccess.length);
  sweep.s.fill(0);
  sweep.rho.fill(0);
  let theta = 0;
  let step = FIRST_STEP * scale;
  let iterations = 0;
  let residual = 0;
  let stable = true;
  const tips: number[] = [];
  // Whether the mixed sweeps stalled at the last load taken (the sweeps oscillate there, as
  // around a storm): the next settles try Newton first, and every fourth the sweeps again.
  // The run of Newton-first settles doubles each time the sweeps, tried again, stall again.
  let stalled = false;
  let run = NEWTON_FIRST_RUN;
  let sinceSweeps = 0;
  // Sweeps of the last settle taken: a probe may use a few times as many.
  let lastTaken = 0;
  const hints = (local: boolean): SettleHints => ({
    newtonFirst: stalled && sinceSweeps + 1 < run,
    local,
  });
  const taken = (settled: Settled, hinted: SettleHints) => {
    if (hinted.newtonFirst === true) sinceSweeps++;
    else {
      sinceSweeps = 0;
      if (!settled.relaxationStalled) run = NEWTON_FIRST_RUN;
      else if (stalled) run = Math.min(2 * run, LONGEST_NEWTON_RUN);
    }
    stalled = settled.relaxationStalled;
    lastTaken = settled.iterations;
  };
  // The fold checks' sweeps count too.
  const count = (sweeps: number) => {
    iterations += sweeps;
  };
  const restore = () => {
    sweep.s.set(savedS);
    sweep.rho.set(savedRho);
    sweep.attemptSuccess.set(savedQ);
  };
  // From the state at theta, past the fold at `past`: plain sweeps through the ghost (its residual
  // stalls for a long while before the state falls away, and mixing would extrapolate the stall),
  // then the full settle where they find no rest. Quick (`patient`): the sweeps stop once away
  // and stalled (across, they may cycle around a storm for good) and the settle tries Newton
  // first. Slow: all the sweeps allowed (a storm building up in a subtree takes thousands), then
  // the settle from where they end.
  const cross = (
    past: number,
    patient: boolean,
  ): { relaxation: Relaxation; settled?: Settled; iterations: number } => {
    const plain = relaxCalls(sweep, past, {
      tolerance: options.tolerance,
      maxIterations: PAST_FOLD_SWEEPS * (options.maxIterations ?? 1000),
      accelerate: false,
      ...(patient
        ? { patience: CROSSED_PATIENCE, patienceFrom: { attemptSuccess: savedQ, distance: JUMP } }
        : {}),
    });
    if (plain.converged || Number.isNaN(plain.residual))
      return { relaxation: plain, iterations: plain.iterations };
    let iterations = plain.iterations;
    if (patient) {
      // Across the ghost, plain sweeps may overshoot into a cycle (a service's s swinging
      // between ~0 and ~0.8 every sweep) where the queues themselves would settle: damped sweeps
      // follow the relaxation without the overshoot (µBench-like seed 3 with its rates × (1 +
      // 1e-13): every crossing cycled, 21,403 sweeps in all; damped, 3,527).
      const damped = relaxCalls(sweep, past, {
        tolerance: options.tolerance,
        maxIterations: CROSSING_DAMPED_SWEEPS,
        patience: CROSSING_DAMPED_PATIENCE,
        relaxation: CROSSING_DAMPING,
      });
      iterations += damped.iterations;
      if (damped.converged) return { relaxation: damped, iterations };
    }
    const settled = settleCalls(sweep, past, patient ? { ...options, newtonFirst: true } : options);
    return { relaxation: settled, settled, iterations: iterations + settled.iterations };
  };
  // The last step found to jump into a state that lowering the load does not undo (while theta
  // is below its end): a jump into (near) the same state is that fold again, not lowered again.
  let bracket: Bracket | undefined;
  // A step at most this long is halved no further (once tipped, no step is halved).
  const finest = () => (tips.length > 0 ? TIPPED_STEP : SMALLEST_STEP) * scale * 1.5;
  // Before the tip, the lowest load whose settle found no rest from a state below it, or that a
  // step jumped to across a fold: no step but the smallest goes that far again until theta has
  // passed it, so after a short step that settled the next is halved until it stops short of
  // it, and the search closes in on the fold instead of doubling back past it (the
  // 10,000-service µBench-like seed 7 probed 0.5625 four times, ~160 sweeps each, on its way to
  // its tip at 0.5618; the 1,000-service seed 7 stepped into the storm beyond 0.8320 five times).
  // On the 1,000-service seeds 0–9, as generated and nudged, the sweeps fell from 40,167 to 29,479
  // in all (µBench-like) and from 62,331 to 47,289 (DGG-like), with the same tips and states
  // (µBench-like seed 7 nudged now reads 0.8311, as it does as generated, not 0.8313). Of the 50
  // call-graph validation networks three tips moved, onto or nearer the jump that a reference
  // raising the load in steps of 1/4096, each settled in full, finds: mubench-328 0.9922 → 0.9895
  // (reference 0.9895), dgg-337 0.4272 → 0.4258 (0.4255), and mubench-306 0.8579 → 0.8577, which
  // a nudge of 1e-13 in the rates moves either way (the search used to miss it under some).
  let failedAt = Number.POSITIVE_INFINITY;
  while (theta < scale) {
    if (theta >= failedAt || tips.length > 0) failedAt = Number.POSITIVE_INFINITY;
    while (theta + step >= failedAt && step > finest()) step /= 2;
    const next = Math.min(scale, theta + step);
    savedS.set(sweep.s);
    savedRho.set(sweep.rho);
    savedQ.set(sweep.attemptSuccess);
    // A step is halved unless a state near the one at theta settles within a few times the
    // sweeps of the last step taken, so its settle asks only that (a probe, which past a fold
    // gives up early). The smallest step before the tip asks the same within
    // LOCAL_SETTLE_SWEEPS (a state near theta may yet settle there slowly: a steep slope, not a
    // fold); the long transient into a distant state is the crossing's. Once tipped, every
    // step's settle is the full one.
    const probe = step > finest();
    const finestStep = !probe && tips.length === 0;
    const hinted = hints(probe || finestStep);
    const relaxed = settleCalls(sweep, next, {
      ...options,
      ...hinted,
      ...(probe || finestStep
        ? {
            maxIterations: Math.min(
              options.maxIterations ?? 1000,
              LOCAL_SETTLE_SWEEPS,
              probe ? Math.max(PROBE_SWEEPS, PROBE_FACTOR * lastTaken) : Number.POSITIVE_INFINITY,
            ),
          }
        : {}),
    });
    iterations += relaxed.iterations;
    residual = relaxed.residual;
    stable = relaxed.stable !== false;
    if (!relaxed.converged) {
      // No rest at the next load: the relaxation is slow near a fold (or cycles). A shorter step
      // first; at the smallest, the state at theta has ceased to exist just past it — a fold —
      // and the load is taken a little further at once, where the network tips quickly.
      restore();
      failedAt = Math.min(failedAt, next);
      if (step > finest()) {
        step /= 2;
        continue;
      }
      bracket = undefined;
      let reachedPast: number | undefined;
      let pastSettled: Settled | undefined;
      // Quick crossings first, at each step past the fold; where none settles, the slow ones.
      for (const patient of [true, false]) {
        // A quick crossing that failed far from the old state has passed the ghost already: the
        // next starts where it ended instead of passing it again (each passage takes ~1,000
        // sweeps on the 1,000-service µBench-like graphs).
        let away = false;
        for (const share of patient ? QUICK_PAST_FOLD_STEPS : PAST_FOLD_STEPS) {
          const past = Math.min(scale, theta + share * scale);
          if (!away) restore();
          const crossed = cross(past, patient);
          iterations += crossed.iterations;
          residual = crossed.relaxation.residual;
          stable = crossed.relaxation.stable !== false;
          if (crossed.relaxation.converged) {
            reachedPast = past;
            pastSettled = crossed.settled;
            break;
          }
          if (past >= scale) break;
          away =
            patient &&
            Number.isFinite(crossed.relaxation.residual) &&
            sweep.distanceTo(savedQ) > JUMP;
        }
        if (reachedPast !== undefined) break;
      }
      if (reachedPast === undefined) {
        restore();
        return { settled: false, iterations, residual, tips, reached: theta };
      }
      // A tip only where the state moved away and lowering the load does not bring it back
      // (else the relaxation was merely slow there, on a steep slope).
      if (
        tips.length === 0 &&
        theta > 0 &&
        sweep.distanceTo(savedQ) > JUMP &&
        foldCheck(sweep, theta, savedQ, options, count, lowered) !== 'slope'
      )
        tips.push(theta);
      if (pastSettled !== undefined) taken(pastSettled, {});
      else stalled = false;
      // Once tipped, the state is followed in the longest steps (see TIPPED_STEP).
      step = tips.length > 0 ? TIPPED_STEP * scale : reachedPast - theta;
      theta = reachedPast;
      continue;
    }
    const jump = sweep.distanceTo(savedQ);
    // Once tipped, the search only follows the state: a step that settles is taken, jump or
    // not, and the next is as long (a quarter of the scale).
    if (tips.length > 0) {
      taken(relaxed, hinted);
      theta = next;
      continue;
    }
    // A large move is first narrowed to a short step (over a long one the branch it jumped to
    // may not reach back to where it came from). Then: if lowering the load undoes it, it is a
    // steep slope, taken; if not, a fold lies inside the step, halved until it is pinned down.
    if (jump > JUMP && step > CHECK_STEP * scale * 1.5) {
      restore();
      step /= 2;
      continue;
    }
    // A jump into (near) the state a longer step jumped into, not undone then, or (near) the
    // state lowering the load from there settled in, is that fold: the branch it jumped into
    // reaches back below theta. (The halved steps jump into states between those two: the
    // 1,000-service DGG-like seed 6 checked one fold at the same load six times.)
    const known =
      jump > JUMP &&
      bracket !== undefined &&
      Math.min(sweep.distanceTo(bracket.q), sweep.distanceTo(bracket.lowered)) <=
        jump * KNOWN_SHARE;
    const check =
      jump > JUMP && theta > 0 && !known
        ? foldCheck(sweep, theta, savedQ, options, count, lowered)
        : undefined;
    const fold = known || (check !== undefined && check !== 'slope');
    if (fold && step > finest()) {
      // Only a state seen to settle below the fold is known to reach back there.
      if (known || check === 'hysteresis')
        bracket = {
          upper: next,
          q: Float64Array.from(sweep.attemptSuccess),
          lowered: known && bracket !== undefined ? bracket.lowered : Float64Array.from(lowered),
        };
      failedAt = Math.min(failedAt, next);
      restore();
      step /= 2;
      continue;
    }
    if (fold) {
      tips.push(theta);
      bracket = undefined;
      step = TIPPED_STEP * scale;
    }
    taken(relaxed, hinted);
    theta = next;
    if (bracket !== undefined && theta >= bracket.upper) bracket = undefined;
    if (jump < JUMP / 2) step = Math.min(2 * step, FIRST_STEP * scale);
  }
  return { settled: true, iterations, residual, tips, reached: scale, stable };
}
