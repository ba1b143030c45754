/** `difftryInterceptor` composed on an undici `Agent`, against the scripted server. */
import { request } from 'undici';
import { difftryInterceptor } from '../../../../src/runtime/undici.js';
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
import { KEY_HEADER, scriptServerWithAgent } from './httpServer.js';
import type { NormalizedEvent, Scenario } from './scripts.js';

const slot = scriptServerWithAgent('undiciHarness');
export const { setup, teardown } = slot;

export async function run(scenario: Scenario): Promise<NormalizedEvent[]> {
  const { server, agent } = slot.current();
  const key = runKey('undici', scenario);
  server.script(key, scenario.steps);
  const budget = budgetOf(scenario);
  const controller = new AbortController();
  const abort = aborter(scenario, budget, () => controller.abort(new Error('caller aborted')));
  const { events, listeners } = collect(abort.trigger);
  const dispatcher = agent.compose(
    difftryInterceptor({
      policy: policyOf(scenario, budget),
      ...(scenario.deadlineMs !== undefined && { deadlineMs: scenario.deadlineMs }),
      ...listeners,
    }),
  );
  const call = request(`${server.origin}/s/${key}`, {
    dispatcher,
    headers: { [KEY_HEADER]: key, 'x-priority': 'high' },
    signal: controller.signal,
  }).then((response) => response.body.arrayBuffer());
  const ended = await settled(call);
  await checkAbort(scenario, ended, abort);
  return events;
}

export const undiciHarness: Harness = {
  name: 'difftryInterceptor (undici)',
  transport: 'http',
  setup,
  teardown,
  run,
};
