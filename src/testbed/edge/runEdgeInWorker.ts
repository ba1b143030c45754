import type { EdgeHooks, EdgePlan, EdgeStreamReport } from './EdgePlan.js';
import { spawnEdgeWorker } from './spawnWorker.js';

/**
 * Runs the edge of a testbed ({@link runEdge}) in a worker thread: the load generator and the
 * external client get their own event loop (and the second core), so the sends keep their
 * Poisson times while the services' loop is busy. The worker is terminated when the run ends,
 * whatever happens.
 */
export function runEdgeInWorker(
  plan: EdgePlan,
  hooks: EdgeHooks = {},
): Promise<EdgeStreamReport[]> {
  const worker = spawnEdgeWorker({ role: 'load', plan });
  return new Promise<EdgeStreamReport[]>((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      hooks.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      settle();
    };
    const onAbort = () => worker.postMessage({ type: 'abort' });
    if (hooks.signal?.aborted) onAbort();
    else hooks.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on(
      'message',
      (message: {
        type: string;
        fraction?: number;
        reports?: EdgeStreamReport[];
        message?: string;
      }) => {
        if (message.type === 'started') hooks.onStarted?.();
        else if (message.type === 'progress') hooks.onProgress?.(message.fraction ?? 0);
        else if (message.type === 'done') finish(() => resolve(message.reports ?? []));
        else if (message.type === 'error') {
          finish(() => reject(new Error(`the load generator's thread failed: ${message.message}`)));
        }
      },
    );
    worker.on('error', (error) => finish(() => reject(error)));
    worker.on('exit', (code) =>
      finish(() => reject(new Error(`the load generator's thread exited (code ${code})`))),
    );
  });
}
