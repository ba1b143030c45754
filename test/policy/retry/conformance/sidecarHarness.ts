/**
 * The sidecar's outbound path (the undici interceptor behind `startSidecar`), configured from the
 * scenario's policy, against the scripted server; events from the `difftry:*` channels.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { request } from 'undici';
import type { SidecarConfigInput } from '../../../../src/config/sidecarSchema.js';
import { type SidecarHandle, startSidecar } from '../../../../src/mesh/index.js';
import type { RetryEvent, RetryEventKind } from '../../../../src/policy/retry/RetryEvent.js';
import { aborter, checkAbort, collect, type Harness, runKey, settled } from './harness.js';
import { KEY_HEADER, scriptServerWithAgent } from './httpServer.js';
import type { NormalizedEvent, Scenario } from './scripts.js';

const CHANNELS: Readonly<Record<RetryEventKind, string>> = {
  retry: 'difftry:retry',
  giveUp: 'difftry:giveup',
  success: 'difftry:success',
  failure: 'difftry:failure',
};

const slot = scriptServerWithAgent('sidecarHarness');
export const { setup, teardown } = slot;

/**
 * The sidecar config of a scenario: its classes (limits, per-try timeouts), backoff and deadline.
 * The config has no retry budget and no `maxPushbackMs` (the default applies, as in the
 * scenarios).
 */
function configOf(scenario: Scenario, upstreamUrl: string): SidecarConfigInput {
  if (scenario.budget !== undefined && scenario.abortAfterFirstFailureMs === undefined) {
    throw new Error(`sidecar: scenario ${scenario.id} needs a budget, which the config lacks`);
  }
  const { policy } = scenario;
  return {
    service: 'conformance',
    classes: Object.entries(policy.classes).map(([name, options]) => ({
      name,
      retries: options.retries,
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      ...(options.backoff !== undefined && { backoff: options.backoff }),
    })),
    ...(policy.defaultClass !== undefined && { defaultClass: policy.defaultClass }),
    ...(policy.backoff !== undefined && { backoff: policy.backoff }),
    outbound: {
      listen: '127.0.0.1:0',
      upstreams: [
        {
          name: 'search',
          url: upstreamUrl,
          ...(scenario.deadlineMs !== undefined && { deadlineMs: scenario.deadlineMs }),
        },
      ],
    },
  };
}

export async function run(scenario: Scenario): Promise<NormalizedEvent[]> {
  const { server, agent } = slot.current();
  const key = runKey('sidecar', scenario);
  server.script(key, scenario.steps);
  const sidecar: SidecarHandle = await startSidecar(configOf(scenario, server.origin));
  const controller = new AbortController();
  const abort = aborter(scenario, undefined, () => controller.abort(new Error('caller aborted')));
  const { events, add } = collect(abort.trigger);
  const subscribers = Object.entries(CHANNELS).map(([kind, name]) => {
    const listener = add(kind as RetryEventKind);
    return { name, onMessage: (message: unknown) => listener(message as RetryEvent) };
  });
  for (const { name, onMessage } of subscribers) subscribe(name, onMessage);
  try {
    const call = request(`${sidecar.outboundUrl}/search/s/${key}`, {
      dispatcher: agent,
      headers: { [KEY_HEADER]: key, 'x-priority': 'high' },
      signal: controller.signal,
    }).then((response) => response.body.arrayBuffer());
    const ended = await settled(call);
    // The config has no budget: only the call's end and the silence after it are checked.
    await checkAbort(scenario, ended, abort);
  } finally {
    for (const { name, onMessage } of subscribers) unsubscribe(name, onMessage);
    await sidecar.close({ graceMs: 0 });
  }
  return events;
}

export const sidecarHarness: Harness = {
  name: 'startSidecar (outbound)',
  transport: 'http',
  setup,
  teardown,
  run,
};
