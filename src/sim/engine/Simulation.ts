import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { EventQueue } from './EventQueue.js';

/**
 * Handles one event: `payload` is the number it was scheduled with; the simulation's clock
 * already reads the event's time.
 */
export type EventHandler = (payload: number) => void;

/**
 * Called every `progressEveryEvents` events with the number processed so far and the virtual
 * time (seconds). The callback is the caller's business: the engine itself never reads a real
 * clock.
 */
export type SimulationProgress = (eventsProcessed: number, now: number) => void;

/** Options of {@link Simulation}. */
export interface SimulationOptions {
  /** Reports progress; nothing is measured or called when absent. */
  readonly onProgress?: SimulationProgress;
  /**
   * Events between two progress reports; default 65 536 (2^16).
   * @default 65_536
   */
  readonly progressEveryEvents?: number;
  /**
   * Initial capacity of the event queue; default 256 (it grows as needed).
   * @default 256
   */
  readonly initialQueueCapacity?: number;
}

/** Default number of events between two progress reports. */
export const DEFAULT_PROGRESS_EVERY_EVENTS = 65_536;

/**
 * A discrete-event simulation engine: a virtual clock (seconds), an {@link EventQueue} and a
 * handler per event kind. Events at equal times run in the order they were scheduled, so a run
 * is a deterministic function of its inputs and random source.
 *
 * There are no real timers: {@link Simulation.run} jumps the clock from one event to the next.
 *
 * @example
 * ```ts
 * const simulation = new Simulation();
 * const TICK = simulation.define((count) => {
 *   if (count < 3) simulation.scheduleIn(1, TICK, count + 1);
 * });
 * simulation.schedule(0, TICK, 0);
 * simulation.run();
 * simulation.now; // 3
 * simulation.eventsProcessed; // 4
 * ```
 */
export class Simulation {
  /** Virtual time, seconds. */
  now = 0;
  /** Events processed since the simulation was created. */
  eventsProcessed = 0;
  private readonly queue: EventQueue;
  private readonly handlers: EventHandler[] = [];
  private readonly onProgress: SimulationProgress | undefined;
  private readonly progressEveryEvents: number;
  private progressCountdown: number;
  private stopped = false;

  constructor(options: Readonly<SimulationOptions> = {}) {
    const every = options.progressEveryEvents ?? DEFAULT_PROGRESS_EVERY_EVENTS;
    if (!(Number.isSafeInteger(every) && every >= 1)) {
      throw new InvalidArgumentError(
        `progressEveryEvents should be a positive integer, got ${every}`,
      );
    }
    this.queue = new EventQueue(options.initialQueueCapacity ?? 256);
    this.onProgress = options.onProgress;
    this.progressEveryEvents = every;
    this.progressCountdown = every;
  }

  /**
   * Registers a handler and returns the event kind that dispatches to it (0, 1, 2, … in order
   * of definition).
   */
  define(handler: EventHandler): number {
    this.handlers.push(handler);
    return this.handlers.length - 1;
  }

  /** Number of events waiting. */
  get pending(): number {
    return this.queue.size;
  }

  /** Time of the next event, seconds, or `Infinity` when none is waiting. */
  nextEventTime(): number {
    return this.queue.peekTime();
  }

  /**
   * Schedules an event of `kind` with `payload` at virtual time `atTime` (seconds, ≥ `now`).
   * @throws RangeError when `atTime` is before `now` or NaN, or `kind` has no handler.
   */
  schedule(atTime: number, kind: number, payload: number): void {
    if (!(atTime >= this.now)) {
      throw new InvalidArgumentError(`event time should be ≥ now (${this.now} s), got ${atTime}`);
    }
    if (this.handlers[kind] === undefined) {
      throw new InvalidArgumentError(`event kind should be one defined by define(), got ${kind}`);
    }
    this.queue.push(atTime, kind, payload);
  }

  /** Schedules an event `delay` seconds (≥ 0) from now. */
  scheduleIn(delay: number, kind: number, payload: number): void {
    this.schedule(this.now + delay, kind, payload);
  }

  /**
   * Processes the next event, if any.
   * @returns whether an event was processed.
   */
  step(): boolean {
    const queue = this.queue;
    if (queue.size === 0) return false;
    const time = queue.peekTime();
    const kind = queue.peekKind();
    const payload = queue.peekPayload();
    queue.pop();
    this.now = time;
    this.eventsProcessed++;
    (this.handlers[kind] as EventHandler)(payload);
    if (--this.progressCountdown === 0) this.reportProgress();
    return true;
  }

  /**
   * Processes events in time order until the next one is later than `untilTime` (seconds),
   * none is left, or a handler calls {@link Simulation.stop}. Unless stopped, the clock then
   * reads `untilTime` when that is finite (time passes even when nothing happens).
   * @param untilTime - default `Infinity`: run until no event is left or `stop()` is called.
   * @returns the number of events processed by this call.
   */
  run(untilTime = Number.POSITIVE_INFINITY): number {
    if (Number.isNaN(untilTime))
      throw new InvalidArgumentError('untilTime should be a number, got NaN');
    const queue = this.queue;
    const handlers = this.handlers;
    const start = this.eventsProcessed;
    this.stopped = false;
    while (queue.size > 0) {
      const time = queue.peekTime();
      if (time > untilTime) break;
      const kind = queue.peekKind();
      const payload = queue.peekPayload();
      queue.pop();
      this.now = time;
      this.eventsProcessed++;
      (handlers[kind] as EventHandler)(payload);
      if (--this.progressCountdown === 0) this.reportProgress();
      if (this.stopped) break;
    }
    if (!this.stopped && Number.isFinite(untilTime) && untilTime > this.now) this.now = untilTime;
    this.stopped = false;
    return this.eventsProcessed - start;
  }

  /** Makes the current {@link Simulation.run} return after the event being handled. */
  stop(): void {
    this.stopped = true;
  }

  private reportProgress(): void {
    this.progressCountdown = this.progressEveryEvents;
    this.onProgress?.(this.eventsProcessed, this.now);
  }
}
