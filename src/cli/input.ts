import { builtinExample } from '../config/examples.js';
import { loadNetworkFile } from '../config/loadNetworkFile.js';
import { parseNetwork } from '../config/parseNetwork.js';
import type { NetworkSpec } from '../config/schema.js';
import type { ModelName } from '../model/phi/Phi.js';
import { UsageError } from './UsageError.js';

/** Where a command's network comes from: a file path or a built-in example's name. */
export interface NetworkSource {
  readonly file?: string;
  readonly example?: string;
}

/** Loads the network a command names, from a file or a built-in example (never both). */
export async function loadNetwork(source: NetworkSource): Promise<NetworkSpec> {
  if (source.file !== undefined && source.example !== undefined) {
    throw new UsageError('give a network FILE or --example NAME, not both');
  }
  if (source.example !== undefined) {
    const { fileName, text } = builtinExample(source.example);
    return parseNetwork(text, fileName);
  }
  if (source.file === undefined) {
    throw new UsageError('missing network: give a FILE (YAML or JSON) or --example NAME');
  }
  return loadNetworkFile(source.file);
}

/**
 * Parses `--retries high=5,low=1` into a map from class name to retry limit; `*` names every
 * class not named otherwise (`*=2,high=5`), and a preset name ({@link RETRY_PRESETS}) stands
 * for its limits.
 * @throws UsageError on anything but comma-separated `NAME=INTEGER` pairs with 0 ≤ k ≤ 100.
 */
export function parseRetries(text: string): Record<string, number> {
  const preset = RETRY_PRESETS[text.trim()];
  if (preset !== undefined) return { ...preset };
  const retries: Record<string, number> = {};
  for (const part of text.split(',')) {
    const match = /^\s*([^=\s]+)\s*=\s*(\d+)\s*$/.exec(part);
    const limit = match ? Number(match[2]) : Number.NaN;
    if (!match || !(limit <= 100)) {
      throw new UsageError(
        `--retries: expected NAME=INTEGER pairs separated by commas (0 to 100), got "${part}"`,
      );
    }
    const name = match[1] as string;
    if (Object.hasOwn(retries, name)) {
      throw new UsageError(
        `--retries: class "${name}" is given twice (${name}=${retries[name]} and ${name}=${limit}); give each class once`,
      );
    }
    retries[name] = limit;
  }
  return retries;
}

/**
 * Named `--retries` values: what a mesh does at every hop when a route names no retry policy.
 * Istio retries every request twice (connect-failure, refused-stream, unavailable, cancelled,
 * 503) whatever its class — the uniform retries DiffTry replaces (docs/mesh-istio.md).
 */
export const RETRY_PRESETS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  'istio-default': { '*': 2 },
};

/** Checks `--model`. */
export function parseModel(text: string): ModelName {
  if (text === 'fluid' || text === 'mm1m' || text === 'mixed') return text;
  throw new UsageError(`--model: expected one of fluid, mm1m, mixed, got "${text}"`);
}

/**
 * A number as people write one in decimal: `60`, `0.5`, `.5`, `1e3`, `-1`. `Number()` alone also
 * takes `0x10` (16), `0b11`, `0o7` and blanks around, so `--timeout 0x10` ran with 16 ms.
 */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** `text` as a number if it is a decimal literal, else NaN (which every check refuses). */
function decimal(text: string): number {
  return DECIMAL.test(text) ? Number(text) : Number.NaN;
}

/** Parses a positive number option such as `--duration 60`. */
export function positiveNumber(name: string): (text: string) => number {
  return (text) => {
    const value = decimal(text);
    if (!(Number.isFinite(value) && value > 0)) {
      throw new UsageError(`${name}: expected a positive number, got "${text}"`);
    }
    return value;
  };
}

/** Parses a non-negative number option such as `--warmup 0`. */
export function nonNegativeNumber(name: string): (text: string) => number {
  return (text) => {
    const value = decimal(text);
    if (!(Number.isFinite(value) && value >= 0)) {
      throw new UsageError(`${name}: expected a number ≥ 0, got "${text}"`);
    }
    return value;
  };
}

/** Parses an integer option within bounds, such as `--replications 10`. */
export function integerIn(name: string, min: number, max: number): (text: string) => number {
  return (text) => {
    const value = decimal(text);
    if (!(Number.isSafeInteger(value) && value >= min && value <= max)) {
      throw new UsageError(`${name}: expected an integer from ${min} to ${max}, got "${text}"`);
    }
    return value;
  };
}
