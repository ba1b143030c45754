import type { ServiceSpec } from '../../src/config/schema.js';

/**
 * The services `service` sends requests on to, each once, in the order the file names them: its
 * routes' targets, its calls' and its branches' calls'. Read off the file itself, not through
 * any consumer, so that a consumer that drops or adds a hop shows.
 */
export function calleesOf(service: ServiceSpec): string[] {
  const targets = [
    ...(service.routes ?? []).map((route) => route.to),
    ...(service.calls ?? []).map((call) => call.to),
    ...(service.branches ?? []).flatMap((branch) => branch.calls.map((call) => call.to)),
  ];
  return [...new Set(targets)];
}
