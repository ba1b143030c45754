/** `difftryFetch` over Node's `fetch`, against the scripted server. */
import { difftryFetch } from '../../../../src/runtime/fetch.js';
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

const slot = scriptServerSlot('fetchHarness');
export const { setup, teardown } = slot;

export async function run(scenario: Scenario): Promise<NormalizedEvent[]> {
  const server = slot.current();
  const key = runKey('fetch', scenario);
  server.script(key, scenario.steps);
  const budget = budgetOf(scenario);
  const controller = new AbortController();
  const abort = aborter(scenario, budget, () => controller.abort(new Error('caller aborted')));
  const { events, listeners } = collect(abort.trigger);
  const fetchWithRetries = difftryFetch({
    policy: policyOf(scenario, budget),
    ...(scenario.deadlineMs !== undefined && { deadlineMs: scenario.deadlineMs }),
    ...listeners,
  });
  const call = fetchWithRetries(`${server.origin}/s/${key}`, {
    headers: { [KEY_HEADER]: key, 'x-priority': 'high' },
    signal: controller.signal,
  }).then((response) => response.arrayBuffer());
  const ended = await settled(call);
  await checkAbort(scenario, ended, abort);
  return events;
}

export const fetchHarness: Harness = {
  name: 'difftryFetch',
  transport: 'http',
  setup,
  teardown,
  run,
};
