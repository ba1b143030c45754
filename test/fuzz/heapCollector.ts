import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * The V8 collector, to measure what the heap keeps rather than what it has not collected yet.
 * Exposed here whatever flags the worker was started with (workers share modules and heaps
 * between test files, so a test cannot count on `global.gc`).
 */
export function heapCollector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
