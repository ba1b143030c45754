/** `retry()` around a plain `fetch` to the scripted server. */
import type { AttemptOutcome } from '../../../../src/policy/retry/AttemptOutcome.js';
import { retry } from '../../../../src/runtime/retry.js';
import {
  aborter,
  budgetOf,
  checkAbort,
  collect,
  type Harness,
  policyOf,
  runKey,
  settled,
} from './harness.js';
import { KEY_HEADER, scriptServerSlot } from './httpServer.js';
import type { NormalizedEvent, Scenario } from './scripts.js';

const slot = scriptServerSlot('retryHarness');
export const { setup, teardown } = slot;

const outcomeOf = (response: Response): AttemptOutcome =>
  response.status === 200
    ? { kind: 'success' }
    : {
        kind: 'status',
        status: response.status,
        header: (name) => response.headers.get(name) ?? undefined,
      };

export async function run(scenario: Scenario): Promise<NormalizedEvent[]> {
  const server = slot.current();
  const key = runKey('retry', scenario);
  server.script(key, scenario.steps);
  const budget = budgetOf(scenario);
  const controller = new AbortController();
  const abort = aborter(scenario, budget, () => controller.abort(new Error('caller aborted')));
  const { events, listeners } = collect(abort.trigger);
  const url = `${server.origin}/s/${key}`;
  const call = retry(
    async ({ signal }) => {
      const response = await fetch(url, { headers: { [KEY_HEADER]: key }, signal });
      // The body is read within the attempt, so a retried response holds no connection.
      await response.arrayBuffer();
      return response;
    },
    {
      policy: policyOf(scenario, budget),
      className: 'high',
      method: 'GET',
      signal: controller.signal,
      ...(scenario.deadlineMs !== undefined && { deadlineMs: scenario.deadlineMs }),
      classify: outcomeOf,
      ...listeners,
    },
  );
  const ended = await settled(call);
  await checkAbort(scenario, ended, abort);
  return events;
}

export const retryHarness: Harness = { name: 'retry()', transport: 'http', setup, teardown, run };
