import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { exponentialDistribution } from '../../model/distributions/exponential.js';
import type { ServiceTimeDistribution } from '../../model/distributions/ServiceTimeDistribution.js';
import { checkNetworkModel, networkMode } from '../../model/network/checkNetworkModel.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import { type RandomSource, seededRandom } from '../../model/random.js';
import type { Clock } from '../../policy/Clock.js';
import type { AttemptOutcome } from '../../policy/retry/AttemptOutcome.js';
import { type CallSettings, CallTracker, NO_TIMEOUT } from '../../policy/retry/CallTracker.js';
import type { RetryPolicy } from '../../policy/retry/RetryPolicy.js';
import { MICROSECONDS_PER_SECOND } from '../../stats/latencyHistogram.js';
import { EventQueue } from '../engine/EventQueue.js';
import { IntFifo } from '../engine/IntFifo.js';
import { LatencyRecorder } from '../engine/LatencyRecorder.js';
import { DEFAULT_PROGRESS_EVERY_EVENTS } from '../engine/Simulation.js';
import { type CallPrograms, callPrograms } from './callsProgram.js';
import { checkRunOptions } from './checkRunOptions.js';
import { hopPolicies } from './hopPolicies.js';
import { NetworkCounters } from './NetworkCounters.js';
import type { NetworkSimulationResult } from './NetworkSimulationResult.js';
import { networkResult } from './networkResult.js';
import type { RateMultiplier } from './RateMultiplier.js';
import { ID_SPAN, RequestSlots } from './RequestSlots.js';
import { routeTable } from './routeTable.js';
import type { SimulateNetworkOptions } from './SimulateNetworkOptions.js';
import { type ScheduledRates, scheduledRates } from './scheduledRates.js';
import { REJECTED, SERVED, TIMED_OUT } from './simulatedOutcomes.js';
import type { NetworkStrategy } from './strategy.js';
import { WindowTally } from './WindowTally.js';

// Event kinds; the payload is a cell, a request id, a service, a timer (serial × ID_SPAN + id),
// nothing.
const ARRIVAL = 0;
const ATTEMPT = 1;
const DEPARTURE = 2;
const TIMEOUT = 3;
const WINDOW_END = 4;
const TALLY_BOUNDARY = 5;

/**
 * The state of one run: requests in a struct of typed arrays indexed by an id that a free list
 * recycles; per service×class counters in flat arrays indexed `service * classCount + class`.
 *
 * The run is its own discrete-event engine (the `Simulation` loop, specialised): a virtual clock,
 * an {@link EventQueue} and a `switch` on the event kind, so every handler is a direct, inlinable
 * call rather than a closure looked up per event.
 */
export class NetworkRun extends RequestSlots {
  /** Virtual time, seconds. */
  private now = 0;
  /** Events processed. */
  private events = 0;
  private stopped = false;
  private readonly queue = new EventQueue();
  private readonly onProgress: ((fraction: number) => void) | undefined;
  private progressCountdown = DEFAULT_PROGRESS_EVERY_EVENTS;
  private readonly network: NetworkModel;
  private readonly random: RandomSource;
  private readonly classCount: number;
  private readonly warmup: number;
  private readonly duration: number;
  private readonly windowEnd: number;

  // Per service.
  private readonly policies: readonly RetryPolicy[];
  private readonly strategy: NetworkStrategy;
  private readonly serviceTimes: readonly ServiceTimeDistribution[];
  private readonly queueLimit: Float64Array;
  private readonly inSystem: Int32Array;
  private readonly lines: readonly IntFifo[];
  /** The schedule's multipliers: per service of its capacity, per cell of its arrivals. */
  private readonly rates: ScheduledRates | undefined;
  private readonly capacityRates: readonly (RateMultiplier | undefined)[];
  private readonly arrivalRates: readonly (RateMultiplier | undefined)[];
  /** Counts events per window of `windowSeconds`; undefined without windows. */
  private readonly tally: WindowTally | undefined;

  /** What the run counts (the typed arrays below are its, held here for the event handlers). */
  private readonly counters: NetworkCounters;

  // Per class.
  private readonly classNames: readonly string[];
  private readonly originals: Float64Array;
  private readonly completed: Float64Array;
  private readonly rejected: Float64Array;
  /** End-to-end latency of completed measured requests, whole µs, and its exact sum (s). */
  private readonly latency: readonly LatencyRecorder[];
  private readonly latencySum: Float64Array;

  // Per service × class.
  private readonly meanInterarrival: Float64Array;
  private readonly routeStart: Int32Array;
  private readonly routeEnd: Int32Array;
  private readonly arrivedCount: Float64Array;
  private readonly passedCount: Float64Array;
  private readonly attemptCount: Float64Array;
  private readonly attemptRejectionCount: Float64Array;
  private readonly hopRejectionCount: Float64Array;
  private readonly timeoutCount: Float64Array;
  /**
   * Per cell: how the hop's clients run a call of the class (its per-try timeout strategy, if
   * any, and where its events go), handed to the request's {@link CallTracker}.
   */
  private readonly cellCalls: readonly CallSettings[];

  // Routes, flat: cumulative probability and target.
  private readonly routeCumulative: Float64Array;
  private readonly routeTarget: Int32Array;

  /** The flattened call programs in call-graph mode; undefined in routing mode. */
  private readonly programs: CallPrograms | undefined;

  private windowEnded = false;
  private measuredOutstanding = 0;

  constructor(network: NetworkModel, options: Readonly<SimulateNetworkOptions>) {
    super();
    checkNetworkModel(network);
    this.network = network;
    const services = network.services;
    this.programs = networkMode(network) === 'calls' ? callPrograms(network) : undefined;
    const { duration, warmup, strategy } = checkRunOptions(network, options);
    this.duration = duration;
    this.warmup = warmup;
    this.windowEnd = warmup + duration;
    this.strategy = strategy;
    this.onProgress = options.onProgress;
    this.random = seededRandom(options.seed, options.stream ?? 0);

    const serviceCount = services.length;
    const classCount = network.classes.length;
    this.classCount = classCount;
    this.classNames = network.classes.map((c) => c.name);
    this.serviceTimes = services.map(
      (s, i) => options.serviceTimes?.[i] ?? exponentialDistribution(1 / s.capacity),
    );
    this.queueLimit = new Float64Array(services.map((s) => s.queue));
    this.inSystem = new Int32Array(serviceCount);
    this.lines = services.map(() => new IntFifo());
    const rates = options.schedule && scheduledRates(options.schedule, network);
    this.rates = rates;
    this.capacityRates = rates?.capacity ?? [];
    this.arrivalRates = rates?.arrivals ?? [];

    const clock: Clock = () => this.now * 1000;
    const hops = hopPolicies(network, options, strategy, clock, this.random);
    this.policies = hops.policies;
    this.cellCalls = hops.cellCalls;

    const routes = routeTable(network);
    this.meanInterarrival = routes.meanInterarrival;
    this.routeStart = routes.routeStart;
    this.routeEnd = routes.routeEnd;
    this.routeCumulative = routes.routeCumulative;
    this.routeTarget = routes.routeTarget;

    const counters = new NetworkCounters(serviceCount, classCount);
    this.counters = counters;
    this.arrivedCount = counters.arrived;
    this.passedCount = counters.passed;
    this.attemptCount = counters.attempts;
    this.attemptRejectionCount = counters.attemptRejections;
    this.hopRejectionCount = counters.hopRejections;
    this.timeoutCount = counters.timeouts;
    this.originals = counters.originals;
    this.completed = counters.completed;
    this.rejected = counters.rejected;
    this.latency = counters.latency.map((histogram) => new LatencyRecorder(histogram));
    this.latencySum = counters.latencySum;
    const cells = serviceCount * classCount;

    this.schedule(this.windowEnd, WINDOW_END, 0);
    const { windowSeconds } = options;
    this.tally =
      windowSeconds === undefined
        ? undefined
        : new WindowTally({
            scheduleBoundary: (at) => this.schedule(at, TALLY_BOUNDARY, 0),
            windowSeconds,
            end: this.windowEnd,
            classCount,
            serviceCount,
            inSystem: this.inSystem,
          });
    for (let cell = 0; cell < cells; cell++) {
      if (this.meanInterarrival[cell] > 0) this.scheduleArrival(cell);
    }
  }

  /**
   * Processes events in time order until none is left or the run has drained (every measured
   * request resolved after the window closed), as `Simulation.run` does.
   */
  run(): void {
    const queue = this.queue;
    while (queue.size > 0) {
      const time = queue.peekTime();
      const kind = queue.peekKind();
      const payload = queue.peekPayload();
      queue.pop();
      this.now = time;
      this.events++;
      switch (kind) {
        case ARRIVAL:
          this.arrival(payload);
          break;
        case ATTEMPT:
          this.attempt(payload);
          break;
        case DEPARTURE:
          this.departure(payload);
          break;
        case TIMEOUT:
          this.timeout(payload);
          break;
        case WINDOW_END:
          this.closeWindow();
          break;
        default:
          this.tally?.boundary();
      }
      if (--this.progressCountdown === 0) this.reportProgress();
      if (this.stopped) break;
    }
  }

  private reportProgress(): void {
    this.progressCountdown = DEFAULT_PROGRESS_EVERY_EVENTS;
    this.onProgress?.(Math.min(1, this.now / this.windowEnd));
  }

  /**
   * Schedules an event of `kind` with `payload` at `atTime` (seconds, ≥ now: a policy, a timeout
   * strategy or a service-time law of the caller's cannot send the run back in time).
   */
  private schedule(atTime: number, kind: number, payload: number): void {
    if (!(atTime >= this.now)) {
      throw new InvalidArgumentError(`event time should be ≥ now (${this.now} s), got ${atTime}`);
    }
    this.queue.push(atTime, kind, payload);
  }

  /** Schedules the next external arrival of `cell` (none if its rate stays 0 from now on). */
  private scheduleArrival(cell: number): void {
    const gap = -this.meanInterarrival[cell] * Math.log1p(-this.random());
    const at = this.later(this.arrivalRates[cell], gap);
    if (at < Number.POSITIVE_INFINITY) this.schedule(at, ARRIVAL, cell);
  }

  /** Now plus `amount` of time run at the multiplier's rate (1 without a multiplier). */
  private later(rate: RateMultiplier | undefined, amount: number): number {
    return rate === undefined ? this.now + amount : rate.advance(this.now, amount);
  }

  /** An external arrival; `cell` = service × classCount + class. */
  private arrival(cell: number): void {
    const now = this.now;
    this.scheduleArrival(cell);
    const classIndex = cell % this.classCount;
    const id = this.allocate();
    this.requestClass[id] = classIndex;
    this.parent[id] = -1;
    this.arrivalTime[id] = now;
    if (now >= this.warmup && now < this.windowEnd) {
      this.measured[id] = 1;
      this.originals[classIndex]++;
      this.measuredOutstanding++;
    } else {
      this.measured[id] = 0;
    }
    this.enter(id, (cell - classIndex) / this.classCount, 0);
  }

  /**
   * Request `id` arrives at `service` and makes its first attempt there; `internal` is 1 unless
   * it is an external arrival at its entry hop.
   */
  private enter(id: number, service: number, internal: number): void {
    this.requestService[id] = service;
    this.internal[id] = internal;
    const cell = service * this.classCount + this.requestClass[id];
    if (this.measured[id] === 1) this.arrivedCount[cell]++;
    this.tally?.entered(cell, internal);
    let tracker = this.trackers[id];
    if (tracker === undefined) {
      tracker = new CallTracker();
      this.trackers[id] = tracker;
    }
    tracker.begin(
      this.policies[service] as RetryPolicy,
      this.classNames[this.requestClass[id]] as string,
      this.cellCalls[cell],
    );
    this.attempt(id);
  }

  /** An attempt (first or retry) of request `id` at its current service. */
  private attempt(id: number): void {
    const service = this.requestService[id];
    const classIndex = this.requestClass[id];
    const cell = service * this.classCount + classIndex;
    const measured = this.measured[id] === 1;
    if (measured) {
      this.attemptCount[cell]++;
      if (this.internal[id] === 1) this.counters.internalAttempts++;
    }
    this.tally?.attempted(cell);
    const timeoutMs = (this.trackers[id] as CallTracker).startAttempt();
    if (timeoutMs !== NO_TIMEOUT) this.startTimer(id, timeoutMs);
    if (this.inSystem[service] >= this.queueLimit[service]) {
      if (measured) this.attemptRejectionCount[cell]++;
      this.tally?.attemptRejected(cell);
      this.serial[id]++; // the attempt's timer, if any, is void
      this.attemptFailed(id, REJECTED);
      return;
    }
    const line = this.lines[service] as IntFifo;
    line.push(id);
    if (++this.inSystem[service] === 1) this.startService(service);
  }

  /** Sets the timer of request `id`'s attempt, `timeoutMs` from now. */
  private startTimer(id: number, timeoutMs: number): void {
    if (!(timeoutMs >= 0)) {
      throw new InvalidArgumentError(
        `a timeout strategy returned ${timeoutMs} ms; expected a number ≥ 0`,
      );
    }
    const serial = ++this.serial[id];
    this.schedule(this.now + timeoutMs / 1000, TIMEOUT, serial * ID_SPAN + id);
  }

  /**
   * A per-try timer expired. If its attempt is still running, the client abandons it: the request
   * moves to a fresh slot and its hop's policy decides on a `timeout` outcome, while the old slot
   * stays behind as an orphan (in the server's queue, or waiting for its calls, which then return
   * to nobody) until the work it stands for is done.
   */
  private timeout(payload: number): void {
    const id = payload % ID_SPAN;
    if (this.serial[id] !== (payload - id) / ID_SPAN) return;
    const classIndex = this.requestClass[id];
    const cell = this.requestService[id] * this.classCount + classIndex;
    this.serial[id]++;
    if (this.measured[id] === 1) this.timeoutCount[cell]++;
    this.tally?.timedOut(cell);
    const fresh = this.allocate();
    this.requestClass[fresh] = classIndex;
    this.requestService[fresh] = this.requestService[id];
    // The call moves with the request; the orphan keeps the fresh slot's idle tracker.
    // (A slot never used before gets a new one: the array of trackers stays without holes.)
    const idle = this.trackers[fresh] ?? new CallTracker();
    this.trackers[fresh] = this.trackers[id] as CallTracker;
    this.trackers[id] = idle;
    this.measured[fresh] = this.measured[id];
    this.arrivalTime[fresh] = this.arrivalTime[id];
    this.parent[fresh] = this.parent[id];
    this.internal[fresh] = this.internal[id];
    this.orphan[id] = 1;
    this.attemptFailed(fresh, TIMED_OUT);
  }

  /**
   * The current attempt of request `id` failed (rejected, timed out, or one of its calls failed):
   * the hop's policy retries it or the request fails here.
   */
  private attemptFailed(id: number, outcome: AttemptOutcome): void {
    const cell = this.requestService[id] * this.classCount + this.requestClass[id];
    const measured = this.measured[id] === 1;
    const decision = (this.trackers[id] as CallTracker).attemptEnded(outcome);
    if (decision.retry) {
      this.schedule(this.now + decision.delayMs / 1000, ATTEMPT, id);
      return;
    }
    if (measured) this.hopRejectionCount[cell]++;
    this.tally?.hopFailed(cell);
    const caller = this.parent[id];
    if (caller >= 0) {
      this.release(id);
      this.callReturned(caller, false);
      return;
    }
    if (measured) this.rejected[this.requestClass[id]]++;
    this.finish(id, false);
  }

  private startService(service: number): void {
    const work = (this.serviceTimes[service] as ServiceTimeDistribution).sample(this.random);
    this.schedule(this.later(this.capacityRates[service], work), DEPARTURE, service);
  }

  /** The request at the head of `service`'s line finishes service: it moves on or leaves. */
  private departure(service: number): void {
    const id = (this.lines[service] as IntFifo).shift();
    if (--this.inSystem[service] > 0) this.startService(service);
    if (this.orphan[id] === 1) {
      // Work its client abandoned: done, and nobody waits for it.
      this.orphan[id] = 0;
      this.release(id);
      return;
    }
    const classIndex = this.requestClass[id];
    const cell = service * this.classCount + classIndex;
    const programs = this.programs;
    if (programs !== undefined) {
      this.sequence[id] = programs.mainSequence[cell];
      this.step[id] = programs.sequenceStart[programs.mainSequence[cell]];
      this.inBranch[id] = 0;
      this.advance(id, programs);
      return;
    }
    if (this.measured[id] === 1) this.passedCount[cell]++;
    this.hopSucceeded(id, cell);
    const end = this.routeEnd[cell];
    let index = this.routeStart[cell];
    if (index < end) {
      const draw = this.random();
      const cumulative = this.routeCumulative;
      while (index < end && draw >= cumulative[index]) index++;
      if (index < end) {
        this.enter(id, this.routeTarget[index], 1);
        return;
      }
    }
    if (this.measured[id] === 1) this.complete(id, classIndex);
    this.finish(id, true);
  }

  /**
   * The current attempt of `id` succeeded: its timer is void, and its call (the hop's budget,
   * timeout strategy and events) and the window tally hear of it.
   */
  private hopSucceeded(id: number, cell: number): void {
    this.serial[id]++;
    (this.trackers[id] as CallTracker).attemptEnded(SERVED);
    this.tally?.hopSucceeded(cell);
  }

  /** Measured external request `id` of `classIndex` completed end to end now. */
  private complete(id: number, classIndex: number): void {
    this.completed[classIndex]++;
    const seconds = this.now - this.arrivalTime[id];
    this.latencySum[classIndex] += seconds;
    this.latency[classIndex]?.record(Math.round(seconds * MICROSECONDS_PER_SECOND));
  }

  /**
   * Call-graph mode: the attempt of `id` has done its own work, or its current step's calls have
   * returned; it makes the calls of the step at `step[id]`, or draws its branch, or succeeds.
   */
  private advance(id: number, programs: CallPrograms): void {
    for (;;) {
      const step = this.step[id];
      if (step < programs.sequenceEnd[this.sequence[id]]) {
        const first = programs.stepStart[step];
        if (programs.stepParallel[step] === 1) {
          // Every call of the group is counted as pending before any is made, so a call that
          // fails at once cannot close the group early.
          this.callsLeft[id] = programs.stepTotal[step];
          this.callFailed[id] = 0;
          const last = programs.stepEnd[step];
          for (let c = first; c < last; c++) {
            const target = programs.callTarget[c];
            for (let k = programs.callCount[c]; k > 0; k--) this.makeCall(id, target);
          }
        } else {
          this.callsLeft[id] = programs.callCount[first] - 1;
          this.makeCall(id, programs.callTarget[first]);
        }
        return;
      }
      if (this.inBranch[id] === 0) {
        this.inBranch[id] = 1;
        const cell = this.requestService[id] * this.classCount + this.requestClass[id];
        const end = programs.branchEnd[cell];
        let index = programs.branchStart[cell];
        if (index < end) {
          const draw = this.random();
          while (index < end && draw >= programs.branchCumulative[index]) index++;
          if (index < end) {
            const sequence = programs.branchSequence[index];
            this.sequence[id] = sequence;
            this.step[id] = programs.sequenceStart[sequence];
            continue;
          }
        }
      }
      this.attemptSucceeded(id);
      return;
    }
  }

  /** Call-graph mode: request `caller` calls `target` (a new request of the same class). */
  private makeCall(caller: number, target: number): void {
    const id = this.allocate();
    this.requestClass[id] = this.requestClass[caller];
    this.measured[id] = this.measured[caller];
    this.parent[id] = caller;
    this.enter(id, target, 1);
  }

  /** Call-graph mode: a call made by `id`'s current attempt has returned, `ok` or failed. */
  private callReturned(id: number, ok: boolean): void {
    const programs = this.programs as CallPrograms;
    const step = this.step[id];
    if (this.orphan[id] === 1) {
      // The attempt was abandoned at its timeout: it makes no further calls, and its slot is free
      // once the last call it is waiting for has returned.
      if (programs.stepParallel[step] === 1 && --this.callsLeft[id] > 0) return;
      this.orphan[id] = 0;
      this.release(id);
      return;
    }
    if (programs.stepParallel[step] === 1) {
      if (!ok) this.callFailed[id] = 1;
      if (--this.callsLeft[id] > 0) return;
      if (this.callFailed[id] === 1) {
        this.callsFailed(id);
        return;
      }
    } else {
      if (!ok) {
        this.callsFailed(id);
        return;
      }
      if (this.callsLeft[id] > 0) {
        this.callsLeft[id]--;
        this.makeCall(id, programs.callTarget[programs.stepStart[step]]);
        return;
      }
    }
    this.step[id] = step + 1;
    this.advance(id, programs);
  }

  /** Call-graph mode: a call of `id`'s attempt failed, so the attempt failed. */
  private callsFailed(id: number): void {
    this.serial[id]++; // the attempt's timer, if any, is void
    this.attemptFailed(id, REJECTED);
  }

  /** Call-graph mode: every call of `id`'s attempt succeeded, so the call to its service did. */
  private attemptSucceeded(id: number): void {
    const classIndex = this.requestClass[id];
    const cell = this.requestService[id] * this.classCount + classIndex;
    if (this.measured[id] === 1) this.passedCount[cell]++;
    this.hopSucceeded(id, cell);
    const caller = this.parent[id];
    if (caller >= 0) {
      this.release(id);
      this.callReturned(caller, true);
      return;
    }
    if (this.measured[id] === 1) this.complete(id, classIndex);
    this.finish(id, true);
  }

  /** Request `id` has left the network, completed (`ok`) or rejected. */
  private finish(id: number, ok: boolean): void {
    this.tally?.finished(this.requestClass[id], ok);
    if (this.measured[id] === 1) {
      this.measuredOutstanding--;
      this.stopIfDrained();
    }
    this.release(id);
  }

  private closeWindow(): void {
    this.windowEnded = true;
    this.stopIfDrained();
  }

  private stopIfDrained(): void {
    if (this.windowEnded && this.measuredOutstanding === 0) this.stopped = true;
  }

  /** The run's result (see {@link networkResult}); it may be read more than once. */
  output(): NetworkSimulationResult {
    for (const recorder of this.latency) recorder.flush();
    return networkResult(this.network, this.counters, {
      mode: this.programs === undefined ? 'routing' : 'calls',
      strategy: this.strategy,
      duration: this.duration,
      warmup: this.warmup,
      events: this.events,
      endTime: this.now,
      ...(this.tally === undefined
        ? {}
        : { windows: this.tally.windows(this.now, this.network, this.rates) }),
    });
  }
}
