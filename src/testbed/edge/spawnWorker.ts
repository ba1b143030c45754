import { Worker } from 'node:worker_threads';

/**
 * Starts `edgeWorker` in a worker thread with `workerData`. From compiled JavaScript the entry is
 * `edgeWorker.js`; from TypeScript sources (tsx, vitest) the thread registers tsx's loader first,
 * since a worker does not inherit the parent's module hooks on Node 20.
 */
export function spawnEdgeWorker(workerData: unknown): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(fromSource ? './edgeWorker.ts' : './edgeWorker.js', import.meta.url);
  return fromSource
    ? new Worker(
        `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`,
        { eval: true, workerData, execArgv: [] },
      )
    : new Worker(entry, { workerData });
}
