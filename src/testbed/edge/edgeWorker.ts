import { parentPort, workerData } from 'node:worker_threads';
import type { EdgePlan } from './EdgePlan.js';
import { runEdge } from './runEdge.js';

/**
 * The worker-thread entry of {@link runEdgeInWorker}: runs {@link runEdge} for `workerData.plan`
 * with its own event loop, so the load generator's timers and the external client's retries
 * never queue behind the services. Messages out: `started`, `progress`, `done` (the reports) or
 * `error`; in: `abort`.
 */
const port = parentPort;
const data = workerData as { readonly role: 'load'; readonly plan: EdgePlan };
const describe = (error: unknown) =>
  error instanceof Error ? (error.stack ?? error.message) : String(error);

if (port !== null && data.role === 'load') {
  const controller = new AbortController();
  port.on('message', (message: { type?: string }) => {
    if (message?.type === 'abort') controller.abort();
  });
  runEdge(data.plan, {
    signal: controller.signal,
    onStarted: () => port.postMessage({ type: 'started' }),
    onProgress: (fraction) => port.postMessage({ type: 'progress', fraction }),
  }).then(
    (reports) => {
      port.postMessage({ type: 'done', reports });
      port.close();
    },
    (error: unknown) => {
      port.postMessage({ type: 'error', message: describe(error) });
      port.close();
    },
  );
}
