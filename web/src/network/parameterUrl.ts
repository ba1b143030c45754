import type { NetworkSpec } from 'difftry/config';
import { fileParameters, type NetworkParameters } from './NetworkParameters.js';
import { clampToRange } from './parameterRanges.js';
import type { ParameterSlot } from './parameterSlots.js';

/**
 * The Network view's parameters in the URL, one key per slot (`arrival.low`, `retries.high`,
 * `retries.search.low`). A parameter equal to the file's is left out, so a link holds only what
 * was changed.
 */

/** Reads one URL parameter: its text, or undefined when the URL has none. */
export type UrlRead = (key: string) => string | undefined;

/**
 * The parameters a URL gives: each slot's URL value moved into its slider's range, or the
 * file's where the URL has none or not a number.
 */
export function parametersFromUrl(
  network: NetworkSpec,
  slots: readonly ParameterSlot[],
  read: UrlRead,
): NetworkParameters {
  return slots.reduce((parameters, slot) => {
    const text = read(slot.key);
    const value = text === undefined || text.trim() === '' ? Number.NaN : Number(text);
    if (!Number.isFinite(value)) return parameters;
    return slot.with(parameters, clampToRange(value, slot.range));
  }, fileParameters(network));
}

/** The URL values of `parameters`: each slot's value, or undefined where it equals the file's. */
export function parameterUrlValues(
  slots: readonly ParameterSlot[],
  parameters: NetworkParameters,
): Record<string, number | undefined> {
  return Object.fromEntries(
    slots.map((slot) => {
      const value = slot.value(parameters);
      return [slot.key, value === slot.fileValue ? undefined : value];
    }),
  );
}
