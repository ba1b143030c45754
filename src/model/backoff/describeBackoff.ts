import type { BackoffDescription } from './BackoffDescription.js';

/**
 * A retry delay in words, as reports print it: `random, mean 100 ms`, `constant 50 ms`,
 * `exponential from 50 ms ×2 up to 800 ms, full jitter`.
 */
export function describeBackoff(backoff: BackoffDescription): string {
  switch (backoff.kind) {
    case 'constant':
      return `constant ${backoff.delayMs} ms`;
    case 'random':
      return `random, mean ${backoff.meanMs} ms`;
    case 'exponential': {
      const cap = backoff.maxMs === undefined ? '' : ` up to ${backoff.maxMs} ms`;
      const jitter = backoff.jitter ?? 'none';
      return `exponential from ${backoff.baseMs} ms ×${backoff.factor ?? 2}${cap}, ${jitter === 'none' ? 'no' : jitter} jitter`;
    }
  }
}
