import type { LatencySample } from '../../../src/model/timeouts/LatencyDistribution.js';
import {
  combinedTimeouts,
  controllerTimeouts,
  exponentialBackoffTimeouts,
  optimizerTimeouts,
  rtoTimeouts,
  type TimeoutOptimizer,
} from '../../../src/policy/timeouts/index.js';
import { fixedTimeout } from '../../../src/policy/timeouts/TimeoutStrategy.js';
import { timeoutConformance } from './common.case.js';

/**
 * A crude stand-in for the model's Optimizer that answers awkward sequences on purpose: the
 * median and the largest uncensored latency (0 when the samples are 0, decreasing never), and
 * a decreasing pair when the samples have an odd count.
 */
const awkwardOptimizer: TimeoutOptimizer = (samples: readonly LatencySample[]) => {
  const uncensored = samples
    .filter((sample) => !sample.censored)
    .map((sample) => sample.latency)
    .sort((a, b) => a - b);
  const median = uncensored[uncensored.length >> 1] ?? 0;
  const largest = uncensored[uncensored.length - 1] ?? 0;
  return { sequence: samples.length % 2 === 1 ? [largest, median] : [median, largest] };
};

timeoutConformance('fixedTimeout', { make: () => fixedTimeout(250), checksInput: false });

timeoutConformance('exponentialBackoffTimeouts (given L0)', {
  make: () => exponentialBackoffTimeouts({ startingLatencyMs: 40 }),
});
timeoutConformance('exponentialBackoffTimeouts (learning L0)', {
  make: () => exponentialBackoffTimeouts({ learnFrom: 3 }),
});

timeoutConformance('controllerTimeouts (defaults)', { make: () => controllerTimeouts() });
timeoutConformance('controllerTimeouts (narrow bounds, γ = 1)', {
  make: () => controllerTimeouts({ initialMs: 20, minMs: 5, maxMs: 80, gamma: 1, alpha: 1 }),
});

timeoutConformance('rtoTimeouts (defaults)', { make: () => rtoTimeouts() });
timeoutConformance('rtoTimeouts (RFC floor, small ceiling)', {
  make: () => rtoTimeouts({ minMs: 1000, maxMs: 3000, clockGranularityMs: 0.001 }),
});

timeoutConformance('optimizerTimeouts (awkward stand-in Optimizer)', {
  make: () => optimizerTimeouts({ recomputeEvery: 3, bufferSize: 20, optimize: awkwardOptimizer }),
});
timeoutConformance('optimizerTimeouts (the model, recency weights)', {
  make: () =>
    optimizerTimeouts({ recomputeEvery: 25, bufferSize: 60, weights: 'recency', tzMs: 5000 }),
  runs: 40,
});

timeoutConformance('combinedTimeouts (awkward stand-in Optimizer)', {
  make: () =>
    combinedTimeouts({
      diagnosticEvery: 3,
      optimizer: { recomputeEvery: 3, bufferSize: 20, optimize: awkwardOptimizer },
    }),
});
timeoutConformance('combinedTimeouts (the model)', {
  make: () =>
    combinedTimeouts({ diagnosticEvery: 4, optimizer: { recomputeEvery: 25, bufferSize: 60 } }),
  runs: 40,
});
