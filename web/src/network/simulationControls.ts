import { make, row } from './elements.js';
import {
  DEFAULT_SWEEP_RUN,
  type SimulatedSweepPoint,
  type SweepSimulationRequest,
} from './simulateSweepPoints.js';
import { type SweepSimulation, startSweepSimulation } from './sweepSimulation.js';

/** The simulate button, its cancel button, progress bar and status, and the run they drive. */
export interface SimulationControls {
  readonly element: HTMLElement;
  /** Stops a running simulation and drops its points, saying why (or nothing). */
  reset(reason: string): void;
  /** Whether a simulation runs or has drawn points (which new parameters make stale). */
  busy(): boolean;
}

/** What the controls need of the view. */
export interface SimulationControlsOptions {
  /**
   * What to simulate now (the view's network and sweep; the controls add the run length), or
   * undefined when nothing is shown.
   */
  request(): Omit<SweepSimulationRequest, 'run'> | undefined;
  /** The points simulated so far (after each point, and empty on a reset). */
  onPoints(points: readonly SimulatedSweepPoint[]): void;
}

/**
 * The sweep's simulation controls (`simulate-button`, `simulate-cancel`, `simulate-progress`,
 * `simulate-status`): a click simulates every point of the sweep in a Web Worker with
 * {@link DEFAULT_SWEEP_RUN}, reporting progress and each point as it comes; cancel terminates it.
 */
export function simulationControls(options: SimulationControlsOptions): SimulationControls {
  const { replications, duration, warmup, seed } = DEFAULT_SWEEP_RUN;
  const start = make('button', { type: 'button', 'data-testid': 'simulate-button' }, 'Simulate');
  start.title = `The network simulator at every point: ${replications} × ${duration} s virtual (warm-up ${warmup} s), seed ${seed}`;
  const cancel = make('button', { type: 'button', 'data-testid': 'simulate-cancel' }, 'Cancel');
  cancel.disabled = true;
  const progress = make('progress', {
    max: '1',
    value: '0',
    'data-testid': 'simulate-progress',
    'aria-label': 'Simulation progress',
  });
  const status = make('span', {
    class: 'muted',
    'data-testid': 'simulate-status',
    'aria-live': 'polite',
  });
  let running: SweepSimulation | undefined;
  let points: SimulatedSweepPoint[] = [];

  /** Marks the run ended (its points stay drawn) and says how. */
  const end = (text: string) => {
    running = undefined;
    start.disabled = false;
    cancel.disabled = true;
    status.textContent = text;
  };
  const reset = (reason: string) => {
    running?.cancel();
    points = [];
    options.onPoints(points);
    progress.value = 0;
    end(reason);
  };

  start.addEventListener('click', () => {
    const request = options.request();
    if (request === undefined) return;
    reset('Simulating…');
    start.disabled = true;
    cancel.disabled = false;
    const started = performance.now();
    running = startSweepSimulation(
      { ...request, run: DEFAULT_SWEEP_RUN },
      {
        onProgress: (fraction) => {
          progress.value = fraction;
        },
        onPoint: (point) => {
          points.push(point);
          options.onPoints(points);
        },
        onDone: () => {
          progress.value = 1;
          const seconds = ((performance.now() - started) / 1000).toFixed(1);
          end(
            `Simulated ${points.length} points in ${seconds} s (${replications} × ${duration} s each, seed ${seed}).`,
          );
        },
        onError: (message) => end(`The simulation failed: ${message}`),
      },
    );
  });
  cancel.addEventListener('click', () => reset('Cancelled.'));

  return {
    element: row(start, cancel, progress, status),
    reset,
    busy: () => running !== undefined || points.length > 0,
  };
}
