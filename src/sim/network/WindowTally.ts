import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import type { NetworkModel } from '../../model/network/NetworkModel.js';
import type { RateMultiplier } from './RateMultiplier.js';
import type { SimulatedWindow, WindowFigures, WindowServiceFigures } from './SimulatedWindow.js';
import type { ScheduledRates } from './scheduledRates.js';

/** Options of {@link WindowTally}. */
export interface WindowTallyOptions {
  /**
   * Schedules the tally's boundary event at a virtual time (seconds): the run calls
   * {@link WindowTally.boundary} when it comes.
   */
  readonly scheduleBoundary: (atTime: number) => void;
  /** Length of a window, virtual seconds; > 0. */
  readonly windowSeconds: number;
  /** When the last window closes, virtual seconds (the end of the measured window); > 0. */
  readonly end: number;
  readonly classCount: number;
  readonly serviceCount: number;
  /** Requests in the system per service, read at each window's end (never copied before). */
  readonly inSystem: Int32Array;
}

// Per-cell counters, each a block of `cells` entries in one array.
const IN = 0;
const OK = 1;
const FAILED = 2;
const ATTEMPTS = 3;
const REFUSED = 4;
const TIMEOUTS = 5;
const CELL_FIELDS = 6;
// Per-class counters after the cell blocks.
const OFFERED = 0;
const COMPLETED = 1;
const REJECTED = 2;
const CLASS_FIELDS = 3;

/** The counts of one closed window and the load at its end. */
interface ClosedWindow {
  readonly start: number;
  readonly end: number;
  readonly counts: Float64Array;
  readonly inSystem: Int32Array;
}

/**
 * Counts a run's events in consecutive windows of virtual time, [0, S), [S, 2S), … up to `end`
 * (the last window is shorter when S does not divide it): the network simulator tells it of each
 * event as it happens, and an event of its own at each window's end files the window's counts
 * and reads each service's requests in the system. Events after `end` (the drain of the last
 * measured requests) are not counted. It draws no random number, so a run with windows makes
 * the same draws, in the same order, as one without.
 */
export class WindowTally {
  private readonly scheduleBoundary: (atTime: number) => void;
  private readonly windowSeconds: number;
  private readonly end: number;
  private readonly cells: number;
  private readonly classCount: number;
  private readonly inSystem: Int32Array;
  private counts: Float64Array;
  private readonly closed: ClosedWindow[] = [];
  private start = 0;

  /** @throws RangeError for a window length that is not a positive finite number. */
  constructor(options: Readonly<WindowTallyOptions>) {
    const { windowSeconds, end } = options;
    if (!(Number.isFinite(windowSeconds) && windowSeconds > 0)) {
      throw new InvalidArgumentError(
        `windowSeconds should be a positive finite number of seconds, got ${windowSeconds}`,
      );
    }
    this.scheduleBoundary = options.scheduleBoundary;
    this.windowSeconds = windowSeconds;
    this.end = end;
    this.classCount = options.classCount;
    this.cells = options.serviceCount * options.classCount;
    this.inSystem = options.inSystem;
    this.counts = new Float64Array(CELL_FIELDS * this.cells + CLASS_FIELDS * this.classCount);
    this.scheduleBoundary(this.boundaryAfter(0));
  }

  /** A request arrived at the cell's service (`internal` 0: an external arrival). */
  entered(cell: number, internal: number): void {
    this.counts[IN * this.cells + cell]++;
    if (internal === 0) this.counts[this.classBlock(OFFERED) + (cell % this.classCount)]++;
  }

  attempted(cell: number): void {
    this.counts[ATTEMPTS * this.cells + cell]++;
  }

  /** An attempt found the queue full. */
  attemptRejected(cell: number): void {
    this.counts[REFUSED * this.cells + cell]++;
  }

  timedOut(cell: number): void {
    this.counts[TIMEOUTS * this.cells + cell]++;
  }

  /** A call got through the cell's hop. */
  hopSucceeded(cell: number): void {
    this.counts[OK * this.cells + cell]++;
  }

  /** A call failed at the cell's hop after its retries. */
  hopFailed(cell: number): void {
    this.counts[FAILED * this.cells + cell]++;
  }

  /** An external request of the class ended, completed (`ok`) or rejected. */
  finished(classIndex: number, ok: boolean): void {
    this.counts[this.classBlock(ok ? COMPLETED : REJECTED) + classIndex]++;
  }

  /**
   * The windows counted so far, with the figures of {@link SimulatedWindow}; a window still open
   * though `now` (the run's virtual time, seconds) has reached its end (the run stopped there
   * before the window's own event) is closed first.
   */
  windows(
    now: number,
    network: NetworkModel,
    rates: ScheduledRates | undefined,
  ): SimulatedWindow[] {
    if (this.start < this.end && now >= this.boundaryAfter(this.start)) this.boundary();
    return this.closed.map((w) => this.figures(w, network, rates));
  }

  private classBlock(field: number): number {
    return CELL_FIELDS * this.cells + field * this.classCount;
  }

  /** The end of the window that starts at `start`. */
  private boundaryAfter(start: number): number {
    const index = Math.round(start / this.windowSeconds) + 1;
    const boundary = index * this.windowSeconds;
    // A last sliver shorter than a millionth of a window is folded into the window before.
    return boundary >= this.end - 1e-6 * this.windowSeconds ? this.end : boundary;
  }

  /** The tally's boundary event: the open window closes (and the next one's is scheduled). */
  boundary(): void {
    const end = this.boundaryAfter(this.start);
    this.closed.push({
      start: this.start,
      end,
      counts: this.counts,
      inSystem: this.inSystem.slice(),
    });
    this.counts = new Float64Array(this.counts.length);
    this.start = end;
    if (end < this.end) this.scheduleBoundary(this.boundaryAfter(end));
  }

  private figures(
    window: ClosedWindow,
    network: NetworkModel,
    rates: ScheduledRates | undefined,
  ): SimulatedWindow {
    const { start, end, counts } = window;
    const length = end - start;
    const { cells, classCount } = this;
    const mean = (m: RateMultiplier | undefined) =>
      m === undefined ? 1 : m.integral(start, end) / length;
    const sum = (field: number, first: number, last: number, step: number) => {
      let total = 0;
      for (let cell = first; cell < last; cell += step) total += counts[field * cells + cell];
      return total;
    };
    const figures = (
      multiplier: number,
      offered: number,
      completed: number,
      rejected: number,
      cell: (field: number) => number,
    ): WindowFigures => {
      const attempts = cell(ATTEMPTS);
      return {
        multiplier,
        offered: offered / length,
        completed: completed / length,
        rejected: rejected / length,
        rejection: ratio(rejected, completed + rejected),
        attempts: attempts / length,
        attemptsPerRequest: ratio(attempts, offered),
        s: ratio(cell(REFUSED), attempts),
        timeouts: cell(TIMEOUTS) / length,
      };
    };

    const classes: Record<string, WindowFigures> = {};
    network.classes.forEach((c, p) => {
      let weighted = 0;
      let weight = 0;
      network.services.forEach((service, i) => {
        const rate = service.arrivals[p] ?? 0;
        weight += rate;
        weighted += rate * mean(rates?.arrivals[i * classCount + p]);
      });
      const classCounts = (field: number) => counts[this.classBlock(field) + p];
      classes[c.name] = figures(
        weight > 0 ? weighted / weight : 1,
        classCounts(OFFERED),
        classCounts(COMPLETED),
        classCounts(REJECTED),
        (field) => sum(field, p, cells, classCount),
      );
    });

    const services: Record<string, WindowServiceFigures> = {};
    network.services.forEach((service, i) => {
      const first = i * classCount;
      const last = first + classCount;
      const multiplier = mean(rates?.capacity[i]);
      const base = figures(
        multiplier,
        sum(IN, first, last, 1),
        sum(OK, first, last, 1),
        sum(FAILED, first, last, 1),
        (field) => sum(field, first, last, 1),
      );
      services[service.name] = {
        ...base,
        rho: base.attempts / (service.capacity * multiplier),
        inSystem: window.inSystem[i] as number,
      };
    });
    return { start, end, classes, services };
  }
}

/** numerator / denominator, NaN when the denominator is 0 (nothing to measure). */
function ratio(numerator: number, denominator: number): number {
  return denominator > 0 ? numerator / denominator : Number.NaN;
}
