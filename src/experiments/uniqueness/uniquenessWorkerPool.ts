/**
 * The worker threads of `difftry verify-uniqueness`: how a worker is started (compiled or under
 * tsx), and a pool that feeds workers ranges of jobs and collects their totals.
 */
import { Worker } from 'node:worker_threads';
import {
  type FromWorker,
  type ToWorker,
  UNIQUENESS_WORKER_KIND,
  type UniquenessRangeResult,
  type UniquenessSettings,
  type UniquenessWorkerData,
} from './uniquenessWorker.js';

/**
 * How to start a worker: the worker's code is beside this file, `.js` when compiled and `.ts`
 * under tsx. Worker threads inherit `execArgv`, but on Node 20 tsx's `--import` hooks do not
 * reach the worker's own entry module, so a `.ts` worker starts from a two-line ES module that
 * loads it through tsx's `tsImport` (resolved from here, so it works from any directory).
 */
function workerEntry(): { entry: URL; execArgv: string[] } {
  const worker = new URL(
    `./uniquenessWorker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
    import.meta.url,
  );
  const execArgv = [...process.execArgv];
  if (worker.pathname.endsWith('.js')) return { entry: worker, execArgv };
  const api = import.meta.resolve('tsx/esm/api');
  const bootstrap = [
    `const { tsImport } = await import(${JSON.stringify(api)});`,
    `await tsImport(${JSON.stringify(worker.href)}, ${JSON.stringify(import.meta.url)});`,
  ].join('\n');
  return { entry: new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), execArgv };
}

/** A range of jobs [first, end), numbered graph by graph. */
export interface JobRange {
  readonly first: number;
  readonly end: number;
}

/** The workers of a run: see {@link startUniquenessWorkers}. */
export interface UniquenessWorkerPool {
  /** Settles when every range handed out has come back; rejects on the first failure. */
  readonly done: Promise<void>;
  /** Ends the workers. */
  stop(): void;
  /** Whether a worker has failed (this thread then stops taking work). */
  failed(): boolean;
}

/**
 * Starts `count` workers that take ranges from `nextRange` until it runs dry, each holding two
 * ranges (one running, one waiting) so it never idles while this thread is busy. `done` settles
 * when every range handed out has come back, and rejects on the first failure (which `failed`
 * then reports, so this thread stops taking work); `stop` ends the workers. `take` gets each
 * range's totals with the number of the thread that ran it (1 … count; 0 is the caller).
 */
export function startUniquenessWorkers(
  settings: UniquenessSettings,
  configs: number,
  count: number,
  nextRange: () => JobRange | undefined,
  take: (result: UniquenessRangeResult, thread: number) => void,
): UniquenessWorkerPool {
  const { entry, execArgv } = workerEntry();
  const workers: Worker[] = [];
  let stopped = false;
  let failed = false;
  const stop = () => {
    stopped = true;
    for (const worker of workers) void worker.terminate();
  };
  const done = new Promise<void>((resolvePool, rejectPool) => {
    let outstanding = 0;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      stop();
      rejectPool(error);
    };
    const settleIfDone = () => {
      if (outstanding === 0 && !failed) resolvePool();
    };
    const data: UniquenessWorkerData = { kind: UNIQUENESS_WORKER_KIND, settings, configs };
    for (let t = 0; t < count; t++) {
      const worker = new Worker(entry, { execArgv, workerData: data });
      workers.push(worker);
      const feed = (): boolean => {
        const range = nextRange();
        if (range === undefined) return false;
        outstanding++;
        worker.postMessage({ type: 'range', ...range } satisfies ToWorker);
        return true;
      };
      worker.on('message', (message: FromWorker) => {
        try {
          outstanding--;
          take(message.result, t + 1);
          feed();
          settleIfDone();
        } catch (error) {
          fail(error);
        }
      });
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (!stopped)
          fail(new Error(`a verify-uniqueness worker stopped early (exit code ${code})`));
      });
      feed();
      feed();
    }
    // Every range may already be gone to this thread before a worker asked.
    settleIfDone();
  });
  // A failure is reported by awaiting `done`; never leave it unhandled meanwhile.
  done.catch(() => undefined);
  return { done, stop, failed: () => failed };
}
