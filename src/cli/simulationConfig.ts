import { classBackoff } from '../config/resolveHops.js';
import type { NetworkSpec } from '../config/schema.js';
import {
  fileClassTimeouts,
  type RunLength,
} from '../experiments/simulation/networkSimulationOptions.js';
import { serviceTimeDistribution } from '../model/distributions/index.js';
import type { NetworkModel } from '../model/network/NetworkModel.js';
import {
  ADAPTIVE_TIMEOUT_KINDS,
  createTimeoutStrategy,
  type TimeoutStrategyDescription,
} from '../policy/timeouts/createTimeoutStrategy.js';
import type { SingleServiceConfig } from '../sim/SingleServiceConfig.js';
import { UsageError } from './UsageError.js';

/**
 * The single-service simulator's configuration for a network of one service: arrivals and retry
 * limits from the analysed `model` (so both see the same overrides), service-time law and
 * backoffs from the file.
 */
export function toSingleServiceConfig(
  network: NetworkSpec,
  model: NetworkModel,
  run: RunLength,
): SingleServiceConfig {
  const [service, ...others] = network.services;
  const resolved = model.services[0];
  if (
    service === undefined ||
    resolved === undefined ||
    others.length > 0 ||
    resolved.routes.length > 0
  ) {
    throw new UsageError(
      `simulate: this release simulates networks of one service with no routes; the file has ${network.services.length} services`,
    );
  }
  return {
    capacity: service.capacity,
    queue: service.queue,
    serviceTime: serviceTimeDistribution(service.serviceTime, service.capacity),
    classes: model.classes.map((c, p) => ({
      name: c.name,
      arrivalRate: resolved.arrivals[p] ?? 0,
      retryLimit: resolved.retryLimits[p] ?? c.retryLimit,
      backoff: classBackoff(network, p),
    })),
    duration: run.duration,
    warmup: run.warmup,
    seed: run.seed,
  };
}

/**
 * Parses `--timeout MS`, a fixed per-try timeout in milliseconds.
 * @throws UsageError unless it is a positive finite number.
 */
export function parseTimeoutMs(text: string): number {
  const value = Number(text);
  if (!(text.trim() !== '' && Number.isFinite(value) && value > 0)) {
    throw new UsageError(`--timeout: expected a positive number of milliseconds, got "${text}"`);
  }
  return value;
}

/** The adaptive strategies `--timeouts` accepts by name (each with its factory's defaults). */
export const SIMULATE_TIMEOUT_STRATEGIES = ADAPTIVE_TIMEOUT_KINDS;

/**
 * Parses `--timeouts STRATEGY`: a name of {@link SIMULATE_TIMEOUT_STRATEGIES} (its defaults) or
 * a JSON description as `createTimeoutStrategy` takes it, e.g. `{"kind":"rto","minMs":20}`. The
 * description is checked by building one strategy from it.
 * @throws UsageError naming what is wrong.
 */
export function parseTimeoutStrategy(text: string): TimeoutStrategyDescription {
  const trimmed = text.trim();
  let description: unknown;
  if (trimmed.startsWith('{')) {
    try {
      description = JSON.parse(trimmed);
    } catch (error) {
      throw new UsageError(`--timeouts: invalid JSON (${messageOf(error)}) in "${text}"`);
    }
  } else if ((SIMULATE_TIMEOUT_STRATEGIES as readonly string[]).includes(trimmed)) {
    description = { kind: trimmed };
  } else {
    const hint = trimmed === 'fixed' ? ' (for a fixed timeout use --timeout MS)' : '';
    throw new UsageError(
      `--timeouts: expected one of ${SIMULATE_TIMEOUT_STRATEGIES.join(', ')} or a JSON description such as {"kind":"rto","minMs":20}, got "${text}"${hint}`,
    );
  }
  try {
    createTimeoutStrategy(description as TimeoutStrategyDescription);
  } catch (error) {
    throw new UsageError(`--timeouts: ${messageOf(error)}`);
  }
  return description as TimeoutStrategyDescription;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The per-try timeouts of a simulation as the JSON reports them: the strategy of `--timeout` or
 * `--timeouts` (every hop, every class), else the file's per-class `timeoutMs` and its services'
 * own `timeouts` (ms by class, for calls into that service), else null.
 */
export type TimeoutSetting =
  | { readonly strategy: TimeoutStrategyDescription }
  | {
      readonly classTimeoutMs: Readonly<Record<string, number>>;
      readonly serviceTimeoutMs?: Readonly<Record<string, Readonly<Record<string, number>>>>;
    }
  | null;

/** The {@link TimeoutSetting} of a run. */
export function timeoutSetting(
  network: NetworkSpec,
  timeouts: TimeoutStrategyDescription | undefined,
): TimeoutSetting {
  if (timeouts !== undefined) return { strategy: timeouts };
  const classTimeoutMs = fileClassTimeouts(network);
  const serviceTimeoutMs: Record<string, Readonly<Record<string, number>>> = {};
  for (const service of network.services) {
    if (Object.keys(service.timeouts ?? {}).length > 0)
      serviceTimeoutMs[service.name] = service.timeouts ?? {};
  }
  const byService = Object.keys(serviceTimeoutMs).length > 0;
  if (Object.keys(classTimeoutMs).length === 0 && !byService) return null;
  return byService ? { classTimeoutMs, serviceTimeoutMs } : { classTimeoutMs };
}

/** One line on the timeouts of a run, for a text header; undefined without timeouts. */
export function describeTimeoutSetting(setting: TimeoutSetting): string | undefined {
  if (setting === null) return undefined;
  if ('classTimeoutMs' in setting) {
    const list = (timeouts: Readonly<Record<string, number>>) =>
      Object.entries(timeouts)
        .map(([name, ms]) => `${name} ${ms} ms`)
        .join(', ');
    const parts: string[] = [];
    if (Object.keys(setting.classTimeoutMs).length > 0)
      parts.push(`from the file's classes, at every hop: ${list(setting.classTimeoutMs)}`);
    const services = Object.entries(setting.serviceTimeoutMs ?? {});
    if (services.length > 0) {
      const each = services.map(([name, t]) => `${name} (${list(t)})`).join('; ');
      parts.push(`on calls into ${each}`);
    }
    return `per-try timeouts ${parts.join('; ')}`;
  }
  const { kind, ...options } = setting.strategy;
  if (kind === 'fixed') return `per-try timeout ${setting.strategy.timeoutMs} ms at every hop`;
  const given = Object.keys(options).length > 0 ? ` ${JSON.stringify(options)}` : ' (defaults)';
  return `per-try timeouts by ${kind}${given}, one strategy per hop`;
}
