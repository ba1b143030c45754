import type { NetworkSpec } from 'difftry/config';
import { entryServiceIndex, fileParameters, type NetworkParameters } from './NetworkParameters.js';
import { arrivalRange, retryRange, type SliderRange } from './parameterRanges.js';

/**
 * One parameter of a network the view has a slider for: where it lives in the URL, the
 * slider's test id, label and range, the file's value, and how to read it from and write it
 * into {@link NetworkParameters}.
 */
export interface ParameterSlot {
  /** The URL key: `arrival.low`, `retries.high`, `retries.search.low`. */
  readonly key: string;
  /** The slider's `data-testid`: `arrival-low`, `retries-high`, `retries-search-low`. */
  readonly testId: string;
  /** The slider's label: `γ low at frontend`, `k high`, `k low at search`. */
  readonly label: string;
  /** How a value is printed beside the slider, unit included (`250 requests/s`, `5`). */
  readonly format: (value: number) => string;
  readonly range: SliderRange;
  readonly fileValue: number;
  /** Whether this is the rate the sweep chart varies (its value moves only the chart's marker). */
  readonly swept: boolean;
  value(parameters: NetworkParameters): number;
  with(parameters: NetworkParameters, value: number): NetworkParameters;
}

/**
 * Every parameter slot of a network, in slider order: each class's arrival rate at the entry,
 * each class's retry limit, then each per-service retry limit the file sets.
 */
export function parameterSlots(network: NetworkSpec): ParameterSlot[] {
  const file = fileParameters(network);
  const entry = network.services[entryServiceIndex(network)]?.name ?? '';
  const lowest = network.classes[network.classes.length - 1]?.name;
  const limit = (value: number) => String(value);
  const arrivals = network.classes.map(
    ({ name }): ParameterSlot => ({
      key: `arrival.${name}`,
      testId: `arrival-${name}`,
      label: `γ ${name} at ${entry}`,
      format: (value) => `${value} requests/s`,
      range: arrivalRange(network, name),
      fileValue: file.arrivals[name] ?? 0,
      swept: name === lowest,
      value: (p) => p.arrivals[name] ?? 0,
      with: (p, value) => ({ ...p, arrivals: { ...p.arrivals, [name]: value } }),
    }),
  );
  const retries = network.classes.map(
    ({ name, retries: fileValue }): ParameterSlot => ({
      key: `retries.${name}`,
      testId: `retries-${name}`,
      label: `k ${name}`,
      format: limit,
      range: retryRange(fileValue),
      fileValue,
      swept: false,
      value: (p) => p.retries[name] ?? fileValue,
      with: (p, value) => ({ ...p, retries: { ...p.retries, [name]: value } }),
    }),
  );
  const serviceRetries = Object.entries(file.serviceRetries).flatMap(([service, limits]) =>
    Object.entries(limits).map(
      ([name, fileValue]): ParameterSlot => ({
        key: `retries.${service}.${name}`,
        testId: `retries-${service}-${name}`,
        label: `k ${name} at ${service}`,
        format: limit,
        range: retryRange(fileValue),
        fileValue,
        swept: false,
        value: (p) => p.serviceRetries[service]?.[name] ?? fileValue,
        with: (p, value) => ({
          ...p,
          serviceRetries: {
            ...p.serviceRetries,
            [service]: { ...p.serviceRetries[service], [name]: value },
          },
        }),
      }),
    ),
  );
  return [...arrivals, ...retries, ...serviceRetries];
}
