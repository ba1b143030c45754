import {
  classAwareBudget,
  envoyBudget,
  finagleBudget,
  grpcThrottle,
  sreThrottle,
} from '../../../src/policy/budget/index.js';
import { budgetConformance } from './common.case.js';

// Each budget with its defaults and with small numbers that drain quickly under the random events.
budgetConformance('finagle (defaults)', {
  name: 'finagle',
  classes: ['any'],
  make: () => finagleBudget(),
  fresh: { balance: 100, retriesInARow: 100 },
});
budgetConformance('finagle (no reserve, short ttl)', {
  name: 'finagle',
  classes: ['any'],
  make: () => finagleBudget({ ttlMs: 1_000, minRetriesPerSec: 0, percentCanRetry: 0.5, slices: 4 }),
  fresh: { balance: 0, retriesInARow: 0 },
});
budgetConformance('grpc (defaults)', {
  name: 'grpc',
  classes: ['any'],
  make: () => grpcThrottle(),
  fresh: { balance: 10, retriesInARow: 1000 },
});
budgetConformance('grpc (small bucket)', {
  name: 'grpc',
  classes: ['any'],
  make: () => grpcThrottle({ maxTokens: 3, tokenRatio: 0.5 }),
  fresh: { balance: 3, retriesInARow: 1000 },
});
budgetConformance('envoy (defaults)', {
  name: 'envoy',
  classes: ['any'],
  make: () => envoyBudget(),
  fresh: { balance: 3, retriesInARow: 3 },
});
budgetConformance('envoy (no minimum)', {
  name: 'envoy',
  classes: ['any'],
  make: () => envoyBudget({ budgetPercent: 50, minRetryConcurrency: 0 }),
  fresh: { balance: 0, retriesInARow: 0 },
});
budgetConformance('sre (defaults)', {
  name: 'sre',
  classes: ['any'],
  make: (random) => sreThrottle({ random }),
  // The first retry finds p = 0 and goes; then requests = 1, p = 1/2, and a draw of 0 refuses.
  fresh: { balance: 1, retriesInARow: 1 },
});
budgetConformance('sre (k = 1, short window)', {
  name: 'sre',
  classes: ['any'],
  make: (random) => sreThrottle({ k: 1, windowMs: 2_000, slices: 2, random }),
  fresh: { balance: 1, retriesInARow: 1 },
});
budgetConformance('class-aware (defaults, three classes)', {
  name: 'class-aware',
  classes: ['gold', 'silver', 'bronze'],
  make: () => classAwareBudget({ classes: ['gold', 'silver', 'bronze'] }),
  // The highest class needs a balance of 1, like the plain budget: the whole reserve of 100.
  fresh: { balance: 100, retriesInARow: 100 },
});
budgetConformance('class-aware (no reserve, whole allowance kept)', {
  name: 'class-aware',
  classes: ['high', 'low'],
  make: () =>
    classAwareBudget({
      classes: ['high', 'low'],
      ttlMs: 1_000,
      minRetriesPerSec: 0,
      percentCanRetry: 0.5,
      reserveShare: 1,
    }),
  fresh: { balance: 0, retriesInARow: 0 },
});
