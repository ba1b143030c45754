/** What every executor's harness shares: its shape, event collection, budgets and aborts. */
import { expect } from 'vitest';
import { createBudget } from '../../../../src/policy/budget/createBudget.js';
import type { RetryBudget } from '../../../../src/policy/budget/RetryBudget.js';
import type { RetryEvent, RetryEventKind } from '../../../../src/policy/retry/RetryEvent.js';
import type { RetryPolicy } from '../../../../src/policy/retry/RetryPolicy.js';
import { retryPolicy } from '../../../../src/policy/retry/RetryPolicy.js';
import { type NormalizedEvent, normalize, type Scenario, type Transport } from './scripts.js';

/** One executor, with the loopback server (or nothing) it runs against. */
export interface Harness {
  readonly name: string;
  readonly transport: Transport;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  run(scenario: Scenario): Promise<NormalizedEvent[]>;
}

/** Every call ends well within this (ms); a call still running then fails the test. */
export const CALL_LIMIT_MS = 5_000;

/**
 * How long a harness waits after an aborted call has ended, to see that nothing follows: past
 * the 300 ms backoff the abort interrupted, when a retry would have been sent.
 */
const AFTER_ABORT_MS = 350;

let runs = 0;
/** A key no other run uses: the scripted servers count attempts per key. */
export function runKey(harness: string, scenario: Scenario): string {
  return `${harness}-${scenario.id}-${++runs}`;
}

/** A fresh budget for one run, if the scenario has one. */
export function budgetOf(scenario: Scenario): RetryBudget | undefined {
  return scenario.budget === undefined ? undefined : createBudget(scenario.budget);
}

/** The scenario's policy on the wall clock, with a fresh budget. */
export function policyOf(scenario: Scenario, budget = budgetOf(scenario)): RetryPolicy {
  return retryPolicy({ ...scenario.policy, ...(budget !== undefined && { budget }) });
}

/** The events of one call, from the runtime's listeners; `onFirstFailure` runs at the first. */
export function collect(onFirstFailure?: () => void) {
  const events: NormalizedEvent[] = [];
  const add = (kind: RetryEventKind) => (event: RetryEvent) => {
    events.push(normalize(kind, event));
    if (kind === 'failure' && event.attempts === 1) onFirstFailure?.();
  };
  return {
    events,
    add,
    listeners: {
      onRetry: add('retry'),
      onGiveUp: add('giveUp'),
      onSuccess: add('success'),
      onFailure: add('failure'),
    },
  };
}

/**
 * Aborts a scenario's call: `abort` is called `abortAfterFirstFailureMs` after the first failure
 * (call `trigger` from the first failure's event). Without the scenario's abort, does nothing.
 * The budget's balance is read when the aborter is made (before the call) and when it aborts.
 */
export function aborter(scenario: Scenario, budget: RetryBudget | undefined, abort: () => void) {
  const delay = scenario.abortAfterFirstFailureMs;
  const startBalance = budget?.balance(Date.now());
  let balanceAtAbort: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    budget,
    startBalance,
    get balanceAtAbort() {
      return balanceAtAbort;
    },
    trigger: () => {
      if (delay === undefined || timer !== undefined) return;
      timer = setTimeout(() => {
        balanceAtAbort = budget?.balance(Date.now());
        abort();
      }, delay);
    },
    clear: () => clearTimeout(timer),
  };
}

/** Resolves with how the call settled, or fails past {@link CALL_LIMIT_MS}. */
export async function settled(call: Promise<unknown>): Promise<'answered' | 'rejected'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('the call did not end')), CALL_LIMIT_MS);
  });
  try {
    return await Promise.race([call.then(() => 'answered' as const), limit]).catch((error) => {
      if (error instanceof Error && error.message === 'the call did not end') throw error;
      return 'rejected' as const;
    });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The checks of an aborted scenario, once the call has settled: it was rejected (or cancelled),
 * nothing follows (the events are compared after this), and the budget, which held the retry
 * when the call was aborted, is back at its starting balance. Without an abort, does nothing.
 */
export async function checkAbort(
  scenario: Scenario,
  ended: 'answered' | 'rejected' | 'cancelled',
  abort: ReturnType<typeof aborter>,
): Promise<void> {
  abort.clear();
  if (scenario.abortAfterFirstFailureMs === undefined) return;
  expect(ended, 'an aborted call does not answer').not.toBe('answered');
  await sleep(AFTER_ABORT_MS);
  const { budget, startBalance } = abort;
  if (budget === undefined || startBalance === undefined) return;
  expect(abort.balanceAtAbort, 'the retry waiting when aborted holds a place').toBe(
    startBalance - 1,
  );
  expect(budget.balance(Date.now()), 'the budget has its place back').toBe(startBalance);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
