import type { SimulationMessage } from './SimulationMessage.js';
import type { SimulatedSweepPoint, SweepSimulationRequest } from './simulateSweepPoints.js';

/** Where a running sweep simulation reports. */
export interface SweepSimulationHandlers {
  onProgress(fraction: number): void;
  onPoint(point: SimulatedSweepPoint): void;
  onDone(): void;
  onError(message: string): void;
}

/** A running sweep simulation. */
export interface SweepSimulation {
  /** Stops it at once (the worker is terminated); no handler is called after. */
  cancel(): void;
}

/**
 * Starts simulating the sweep chart's points in a Web Worker (simulateWorker.ts), one worker
 * per run, terminated when the run ends or is cancelled.
 */
export function startSweepSimulation(
  request: SweepSimulationRequest,
  handlers: SweepSimulationHandlers,
): SweepSimulation {
  const worker = new Worker(new URL('./simulateWorker.ts', import.meta.url), { type: 'module' });
  const stop = () => worker.terminate();
  worker.addEventListener('message', (event: MessageEvent<SimulationMessage>) => {
    const message = event.data;
    switch (message.kind) {
      case 'progress':
        handlers.onProgress(message.fraction);
        break;
      case 'point':
        handlers.onPoint(message.point);
        break;
      case 'done':
        stop();
        handlers.onDone();
        break;
      case 'error':
        stop();
        handlers.onError(message.message);
        break;
    }
  });
  worker.addEventListener('error', (event) => {
    stop();
    handlers.onError(event.message || 'the simulation worker failed to start');
  });
  worker.postMessage(request);
  return { cancel: stop };
}
