/**
 * The Network view's simulation worker: simulates the sweep chart's points
 * (`simulateSweepPoints`) off the page's thread, posting progress, each point as it is done,
 * and the end. The page cancels a run by terminating the worker.
 */
import type { SimulationMessage } from './SimulationMessage.js';
import { type SweepSimulationRequest, simulateSweepPoints } from './simulateSweepPoints.js';

/** Progress messages per run: plenty for a progress bar, few enough to cost nothing. */
const PROGRESS_STEPS = 500;

const post = (message: SimulationMessage) => self.postMessage(message);

self.addEventListener('message', (event: MessageEvent<SweepSimulationRequest>) => {
  try {
    let posted = -1;
    simulateSweepPoints(
      event.data,
      (fraction) => {
        const step = Math.floor(fraction * PROGRESS_STEPS);
        if (step === posted) return;
        posted = step;
        post({ kind: 'progress', fraction });
      },
      (point) => post({ kind: 'point', point }),
    );
    post({ kind: 'done' });
  } catch (error) {
    post({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
  }
});
