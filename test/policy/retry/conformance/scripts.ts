/**
 * The host-neutral scenarios of the retry conformance suite: what each attempt of one call comes
 * to, the policy and call settings it runs under, and the events every executor must report for
 * it, written out by hand as the reference (not derived from the engine).
 */
import type { BudgetDescription } from '../../../../src/policy/budget/createBudget.js';
import type { RetryEvent, RetryEventKind } from '../../../../src/policy/retry/RetryEvent.js';
import type { GiveUpReason, RetryPolicyOptions } from '../../../../src/policy/retry/RetryPolicy.js';

/** What one attempt comes to, as the scripted server plays it. */
export type Step =
  /** HTTP 503 (gRPC UNAVAILABLE); `pushbackMs` sets `Retry-After` (s) or `grpc-retry-pushback-ms`. */
  | { readonly kind: 'unavailable'; readonly pushbackMs?: number }
  /** The server drops the connection (HTTP: destroys the socket; gRPC: the HTTP/2 session). */
  | { readonly kind: 'reset' }
  /** The server never answers: the per-try timeout ends the attempt. */
  | { readonly kind: 'hang' }
  /** HTTP 200 (gRPC OK). */
  | { readonly kind: 'success' };

/**
 * How an attempt ended, as every host can say it; anything else is `unexpected …` (never
 * thrown: the events come from listeners, which must not throw), so a diff shows it.
 */
export type Outcome =
  | 'unavailable'
  | 'network-error'
  | 'timeout'
  | 'success'
  | `unexpected ${string}`;

/** An event as the suite compares it. */
export interface NormalizedEvent {
  readonly kind: RetryEventKind;
  readonly attempts: number;
  readonly outcome: Outcome;
  readonly delayMs?: number;
  readonly reason?: GiveUpReason;
}

/** The transports the executors run on; a scenario may expect other events on one of them. */
export type Transport = 'http' | 'grpc' | 'sim';

export interface Scenario {
  readonly id: number;
  readonly name: string;
  /** Attempt i (0-based) plays steps[i]; attempts past the end play the last step. */
  readonly steps: readonly Step[];
  /** The policy, without its budget (made fresh for each run from `budget`). */
  readonly policy: RetryPolicyOptions;
  readonly budget?: Readonly<BudgetDescription>;
  /** The call's deadline, ms from its start. */
  readonly deadlineMs?: number;
  /** The caller aborts (cancels) the call this many ms after its first failure. */
  readonly abortAfterFirstFailureMs?: number;
  /** The events every executor reports. */
  readonly expected: readonly NormalizedEvent[];
  /**
   * The events on a transport that says an outcome its own way, written out in full (e.g. gRPC
   * has no network error: a dropped connection is UNAVAILABLE).
   */
  readonly expectedOn?: Partial<Record<Transport, readonly NormalizedEvent[]>>;
}

/** The events `scenario` must produce on `transport`. */
export function expectedEvents(
  scenario: Scenario,
  transport: Transport,
): readonly NormalizedEvent[] {
  return scenario.expectedOn?.[transport] ?? scenario.expected;
}

/** The step attempt `index` (0-based) of `scenario` plays. */
export function stepOf(steps: readonly Step[], index: number): Step {
  return steps[Math.min(index, steps.length - 1)] as Step;
}

/** The outcome the suite compares, from an engine event's outcome. */
export function normalizeOutcome(outcome: RetryEvent['outcome']): Outcome {
  switch (outcome.kind) {
    case 'success':
      return 'success';
    case 'timeout':
      return 'timeout';
    case 'error':
      return 'network-error';
    case 'status':
      return outcome.status === 503 ? 'unavailable' : `unexpected HTTP status ${outcome.status}`;
    case 'grpc':
      return outcome.code === 14 ? 'unavailable' : `unexpected gRPC code ${outcome.code}`;
  }
}

/** An engine event as the suite compares it. */
export function normalize(kind: RetryEventKind, event: RetryEvent): NormalizedEvent {
  return {
    kind,
    attempts: event.attempts,
    outcome: normalizeOutcome(event.outcome),
    ...(event.delayMs !== undefined && { delayMs: event.delayMs }),
    ...(event.reason !== undefined && { reason: event.reason }),
  };
}

const PER_TRY_TIMEOUT_MS = 300;
const constant = (delayMs: number) => ({ kind: 'constant', delayMs }) as const;
/** Class `high`, 2 retries, the per-try timeout, and a constant backoff of `delayMs`. */
const policy = (delayMs = 5, timeoutMs = PER_TRY_TIMEOUT_MS): RetryPolicyOptions => ({
  classes: { high: { retries: 2, timeoutMs } },
  defaultClass: 'high',
  backoff: constant(delayMs),
});

const unavailable: Step = { kind: 'unavailable' };
const success: Step = { kind: 'success' };

const failure = (attempts: number, outcome: Outcome): NormalizedEvent => ({
  kind: 'failure',
  attempts,
  outcome,
});
const retryAfter = (attempts: number, outcome: Outcome, delayMs: number): NormalizedEvent => ({
  kind: 'retry',
  attempts,
  outcome,
  delayMs,
});
const giveUp = (attempts: number, outcome: Outcome, reason: GiveUpReason): NormalizedEvent => ({
  kind: 'giveUp',
  attempts,
  outcome,
  reason,
});
const succeeded = (attempts: number): NormalizedEvent => ({
  kind: 'success',
  attempts,
  outcome: 'success',
});

export const scenarios: readonly Scenario[] = [
  {
    id: 1,
    name: '503, 503, then success',
    steps: [unavailable, unavailable, success],
    policy: policy(),
    expected: [
      failure(1, 'unavailable'),
      retryAfter(1, 'unavailable', 5),
      failure(2, 'unavailable'),
      retryAfter(2, 'unavailable', 5),
      succeeded(3),
    ],
  },
  {
    id: 2,
    name: 'connection reset, then success',
    steps: [{ kind: 'reset' }, success],
    policy: policy(),
    expected: [failure(1, 'network-error'), retryAfter(1, 'network-error', 5), succeeded(2)],
    // gRPC has no network-error outcome: a dropped connection ends the call UNAVAILABLE.
    expectedOn: {
      grpc: [failure(1, 'unavailable'), retryAfter(1, 'unavailable', 5), succeeded(2)],
    },
  },
  {
    id: 3,
    name: 'an attempt past the per-try timeout, then success',
    steps: [{ kind: 'hang' }, success],
    policy: policy(),
    expected: [failure(1, 'timeout'), retryAfter(1, 'timeout', 5), succeeded(2)],
  },
  {
    id: 4,
    name: 'Retry-After: 0, then success (the server wait replaces the backoff)',
    steps: [{ kind: 'unavailable', pushbackMs: 0 }, success],
    policy: policy(),
    expected: [failure(1, 'unavailable'), retryAfter(1, 'unavailable', 0), succeeded(2)],
  },
  {
    id: 5,
    name: 'Retry-After: 120 over maxPushbackMs: pushback refused',
    steps: [{ kind: 'unavailable', pushbackMs: 120_000 }, success],
    policy: policy(),
    expected: [failure(1, 'unavailable'), giveUp(1, 'unavailable', 'pushback')],
  },
  {
    id: 6,
    name: '503 three times: limit',
    steps: [unavailable],
    policy: policy(),
    expected: [
      failure(1, 'unavailable'),
      retryAfter(1, 'unavailable', 5),
      failure(2, 'unavailable'),
      retryAfter(2, 'unavailable', 5),
      failure(3, 'unavailable'),
      giveUp(3, 'unavailable', 'limit'),
    ],
  },
  {
    id: 7,
    name: 'budget exhausted after one failure',
    steps: [unavailable, success],
    policy: policy(),
    // One failure takes a token: 1 left, not above maxTokens / 2, so the retry is refused.
    budget: { kind: 'grpc', maxTokens: 2, tokenRatio: 0.1 },
    expected: [failure(1, 'unavailable'), giveUp(1, 'unavailable', 'budget')],
  },
  {
    id: 8,
    name: 'deadline: a 100 ms backoff does not fit a 50 ms deadline',
    steps: [unavailable, success],
    policy: policy(100),
    deadlineMs: 50,
    expected: [failure(1, 'unavailable'), giveUp(1, 'unavailable', 'deadline')],
  },
  {
    id: 9,
    name: 'aborted during the 300 ms backoff: no give-up, budget given back',
    steps: [unavailable, success],
    policy: policy(300),
    budget: { kind: 'envoy', budgetPercent: 20, minRetryConcurrency: 3 },
    abortAfterFirstFailureMs: 50,
    expected: [failure(1, 'unavailable'), retryAfter(1, 'unavailable', 300)],
  },
  {
    id: 10,
    name: 'every attempt past a 100 ms per-try timeout: limit',
    steps: [{ kind: 'hang' }],
    policy: policy(5, 100),
    expected: [
      failure(1, 'timeout'),
      retryAfter(1, 'timeout', 5),
      failure(2, 'timeout'),
      retryAfter(2, 'timeout', 5),
      failure(3, 'timeout'),
      giveUp(3, 'timeout', 'limit'),
    ],
  },
];

/** The scenario with `id`. */
export function scenario(id: number): Scenario {
  const found = scenarios.find((s) => s.id === id);
  if (found === undefined) throw new Error(`no scenario ${id}`);
  return found;
}
