import { describe, expect, it, vi } from 'vitest';
import { AttemptTimeoutError } from '../../src/runtime/errors.js';
import { type RetryEvent, retry } from '../../src/runtime/retry.js';

// A call whose deadline is spent before it starts sends nothing, reports no
// attempt, and gives up on the deadline with a AttemptTimeoutError.

describe('retry: a deadline spent on arrival', () => {
  it('never runs the attempt, reports no failure and gives up with reason deadline', async () => {
    const fn = vi.fn(async () => 'ok');
    const failures: RetryEvent[] = [];
    const giveUps: RetryEvent[] = [];
    const call = retry(fn, {
      policy: { classes: { high: { retries: 3 } }, clock: () => 1000 },
      className: 'high',
      deadlineMs: 0,
      onFailure: (event) => failures.push(event),
      onGiveUp: (event) => giveUps.push(event),
    });
    await expect(call).rejects.toBeInstanceOf(AttemptTimeoutError);
    expect(fn).not.toHaveBeenCalled();
    expect(failures).toStrictEqual([]);
    expect(giveUps.map((e) => [e.reason, e.attempts])).toStrictEqual([['deadline', 0]]);
  });
});
