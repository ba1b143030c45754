import type { TestbedEvent, TestbedJobRequest, TestbedJobRunner } from './TestbedJob.js';

/** Listens to a job's events; returns nothing. */
export type TestbedListener = (event: TestbedEvent) => void;

/** The one-at-a-time testbed of the UI server. */
export interface TestbedJobs {
  /** Starts a job, unless one is running (then says which). */
  start(request: TestbedJobRequest): { ok: true } | { ok: false; error: string };
  /** Stops the running job; false when none runs. */
  stop(): boolean;
  /** Whether a job runs now. */
  running(): boolean;
  /**
   * Hears the current (or last) job's events: those so far at once, then the rest as they come.
   * @returns the unsubscribe function.
   */
  subscribe(listener: TestbedListener): () => void;
  /** Stops the running job and waits for it to end. */
  close(): Promise<void>;
}

/**
 * Runs the page's testbed jobs one at a time (the testbed takes the machine's cores: two runs
 * side by side would measure each other). A second start while one runs is refused with a
 * reason; events are kept for the current job so a page that connects late sees all of them.
 * @param now - wall clock in ms (for the run time the last event reports); default
 *   `performance.now`.
 */
export function testbedJobs(
  runner: TestbedJobRunner,
  now: () => number = () => performance.now(),
): TestbedJobs {
  let current:
    | { controller: AbortController; done: Promise<void>; request: TestbedJobRequest }
    | undefined;
  let events: TestbedEvent[] = [];
  const listeners = new Set<TestbedListener>();
  const emit = (event: TestbedEvent) => {
    events.push(event);
    for (const listener of listeners) listener(event);
  };
  return {
    start(request) {
      if (current !== undefined) {
        return {
          ok: false,
          error: `a testbed ${current.request.kind} is already running; stop it or wait for it to end (one run at a time)`,
        };
      }
      const controller = new AbortController();
      events = [];
      const started = now();
      const seconds = () => (now() - started) / 1000;
      const done = (async () => {
        try {
          await runner(request, { signal: controller.signal, emit });
          emit(
            controller.signal.aborted
              ? { kind: 'stopped', seconds: seconds() }
              : { kind: 'done', seconds: seconds() },
          );
        } catch (error) {
          emit({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
        } finally {
          current = undefined;
        }
      })();
      current = { controller, done, request };
      return { ok: true };
    },
    stop() {
      if (current === undefined) return false;
      current.controller.abort();
      return true;
    },
    running: () => current !== undefined,
    subscribe(listener) {
      for (const event of events) listener(event);
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      const running = current;
      if (running === undefined) return;
      running.controller.abort();
      await running.done;
    },
  };
}
