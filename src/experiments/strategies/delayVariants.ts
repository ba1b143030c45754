/**
 * The two retry delays of the strategies comparison: the paper's long random delay (mean 2 s) and
 * a short exponential backoff (base 25 ms, full jitter).
 */
import type { BackoffDescription } from '../../model/backoff/BackoffDescription.js';

/** One retry delay of the comparison: its key, its label in full and short, its backoff. */
export interface Variant {
  readonly key: 'long' | 'short';
  readonly label: string;
  readonly short: string;
  readonly backoff: BackoffDescription;
}
/** The delays compared, in the order the chart's rows and the report's sections take. */
export const VARIANTS: readonly Variant[] = [
  {
    key: 'long',
    label: 'retry delay random (exponential), mean 2000 ms',
    short: 'delay 2 s',
    backoff: { kind: 'random', meanMs: 2000 },
  },
  {
    key: 'short',
    label: 'exponential backoff, base 25 ms, factor 2, full jitter',
    short: 'backoff 25 ms',
    backoff: { kind: 'exponential', baseMs: 25, factor: 2, jitter: 'full' },
  },
];
