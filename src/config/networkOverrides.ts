import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import type { ModelName } from '../model/phi/Phi.js';
import type { NetworkSpec } from './schema.js';

/** What-if overrides applied on top of a network file (`--retries`, `--timeout`, `--model`). */
export interface NetworkOverrides {
  /** Use this φ law at every service, whatever the file says. */
  readonly model?: ModelName;
  /**
   * Retry limit per class name, applied at every hop (it replaces the class's `retries` and every
   * per-service override of that class); {@link EVERY_CLASS} stands for every class not named.
   */
  readonly retries?: Readonly<Record<string, number>>;
  /**
   * A per-try timeout for every class at every hop, ms (it replaces the classes' `timeoutMs` and
   * every service's `timeouts`), as `difftry simulate --timeout` gives one.
   */
  readonly timeoutMs?: number;
}

/**
 * The key of `retries` overrides that stands for every class not named (`--retries '*=2'`): a
 * uniform limit at every hop, over the services' own, as a mesh's default retry policy applies.
 */
export const EVERY_CLASS = '*';

/** The retry limit `retries` overrides give class `name`: its own, else every class's, if any. */
export function retriesOverride(
  retries: Readonly<Record<string, number>> | undefined,
  name: string,
): number | undefined {
  return retries?.[name] ?? retries?.[EVERY_CLASS];
}

/**
 * The network file with the what-ifs written into it: the one place `--retries`, `--timeout` and
 * `--model` are applied, so that every reader of the result (the hop resolver, the testbed, a
 * deployment) sees the same network. Pure: returns a new network (the same one without
 * overrides).
 * @throws RangeError when `retries` names a class the file does not declare.
 * @example
 * ```ts
 * const what = applyOverrides(network, { retries: { low: 0 }, timeoutMs: 250 });
 * ```
 */
export function applyOverrides(
  network: NetworkSpec,
  overrides: NetworkOverrides = {},
): NetworkSpec {
  const { retries, timeoutMs, model } = overrides;
  const classNames = network.classes.map((c) => c.name);
  for (const name of Object.keys(retries ?? {})) {
    if (name !== EVERY_CLASS && !classNames.includes(name)) {
      throw new InvalidArgumentError(
        `--retries names class "${name}", expected one of the file's classes (${classNames.join(', ')})`,
      );
    }
  }
  if (retries === undefined && timeoutMs === undefined && model === undefined) return network;
  const overridden = (name: string) => retriesOverride(retries, name) !== undefined;
  return {
    ...network,
    ...(model !== undefined && { model }),
    classes: network.classes.map((c) => ({
      ...c,
      retries: retriesOverride(retries, c.name) ?? c.retries,
      ...(timeoutMs !== undefined && { timeoutMs }),
    })),
    services: network.services.map((service) => {
      const { retries: own, timeouts, model: serviceModel, ...rest } = service;
      const kept =
        own === undefined
          ? undefined
          : Object.fromEntries(Object.entries(own).filter(([name]) => !overridden(name)));
      return {
        ...rest,
        ...(kept !== undefined && Object.keys(kept).length > 0 && { retries: kept }),
        ...(timeoutMs === undefined && timeouts !== undefined && { timeouts }),
        ...(model === undefined && serviceModel !== undefined && { model: serviceModel }),
      };
    }),
  };
}
