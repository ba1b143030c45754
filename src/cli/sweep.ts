import type { NetworkSpec } from '../config/schema.js';
import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import type { NetworkModel } from '../model/network/NetworkModel.js';
import type { SweptParameter } from '../model/network/SweptParameter.js';
import { UsageError } from './UsageError.js';

/** One swept parameter as `--sweep` names it: a service's arrival rate of a class, or its capacity. */
export interface Sweep extends SweptParameter {
  /** As written: `frontend.low`. */
  readonly target: string;
  readonly values: readonly number[];
}

/** The most points a sweep may have. */
export const MAX_SWEEP_POINTS = 10_000;

/**
 * Parses `--sweep SERVICE.FIELD=FROM:TO:STEP` (FIELD a class name for its arrival rate, or
 * `capacity`) against a network; the values run from FROM to TO inclusive.
 * @throws UsageError naming what is wrong.
 */
export function parseSweep(text: string, network: NetworkModel): Sweep {
  const match = /^\s*([^.=\s]+)\.([^=\s]+)\s*=\s*([^:]+):([^:]+):([^:]+)\s*$/.exec(text);
  if (!match) {
    throw new UsageError(
      `--sweep: expected SERVICE.FIELD=FROM:TO:STEP (FIELD a class name or capacity), got "${text}"`,
    );
  }
  const [, service, field, fromText, toText, stepText] = match as unknown as string[];
  const serviceIndex = network.services.findIndex((s) => s.name === service);
  if (serviceIndex < 0) {
    throw new UsageError(
      `--sweep: expected a service of the network (${network.services.map((s) => s.name).join(', ')}), got "${service}"`,
    );
  }
  const classIndex = network.classes.findIndex((c) => c.name === field);
  if (classIndex < 0 && field !== 'capacity') {
    throw new UsageError(
      `--sweep: expected a class name (${network.classes.map((c) => c.name).join(', ')}) or capacity after "${service}.", got "${field}"`,
    );
  }
  const [from, to, step] = [fromText, toText, stepText].map(Number) as [number, number, number];
  if (![from, to, step].every(Number.isFinite) || step <= 0 || to < from || from < 0) {
    throw new UsageError(
      `--sweep: expected 0 ≤ FROM ≤ TO and STEP > 0, got ${fromText}:${toText}:${stepText}`,
    );
  }
  const count = Math.floor((to - from) / step + 1e-9) + 1;
  if (count > MAX_SWEEP_POINTS) {
    throw new UsageError(`--sweep: at most ${MAX_SWEEP_POINTS} points, got ${count}`);
  }
  if (field === 'capacity' && from <= 0) {
    throw new UsageError('--sweep: a capacity must stay positive, expected FROM > 0');
  }
  // Values as FROM + i·STEP, rounded to the step's decimals, so 0.1 steps print cleanly.
  const decimals = Math.min(
    12,
    (stepText?.split('.')[1] ?? '').length + (fromText?.split('.')[1] ?? '').length,
  );
  const values = Array.from({ length: count }, (_, i) =>
    Number((from + i * step).toFixed(decimals)),
  );
  return {
    target: `${service}.${field}`,
    serviceIndex,
    field: classIndex >= 0 ? classIndex : 'capacity',
    values,
  };
}

/**
 * A network file with the swept parameter set to `value` (a new value; the input is unchanged),
 * so that everything derived from the file — service-time laws, residual corrections — follows.
 */
export function applySweepToSpec(network: NetworkSpec, sweep: Sweep, value: number): NetworkSpec {
  const field = sweep.field;
  const className = field === 'capacity' ? undefined : network.classes[field]?.name;
  if (field !== 'capacity' && className === undefined) {
    throw new InvalidArgumentError(
      `the sweep names class ${field}, which the network does not have`,
    );
  }
  return {
    ...network,
    services: network.services.map((service, i) => {
      if (i !== sweep.serviceIndex) return service;
      if (className === undefined) return { ...service, capacity: value };
      return { ...service, arrivals: { ...service.arrivals, [className]: value } };
    }),
  };
}
