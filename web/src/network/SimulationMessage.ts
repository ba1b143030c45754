import type { SimulatedSweepPoint } from './simulateSweepPoints.js';

/** What the simulation worker posts to the page. */
export type SimulationMessage =
  | { readonly kind: 'progress'; readonly fraction: number }
  | { readonly kind: 'point'; readonly point: SimulatedSweepPoint }
  | { readonly kind: 'done' }
  | { readonly kind: 'error'; readonly message: string };
