import { describe, expect, it } from 'vitest';
import { parseLatencySamples } from '../../src/config/parseLatencySamples.js';
import { isSpecError, type SpecError } from '../../src/config/SpecError.js';

/** The SpecError `parseLatencySamples(text, 'lat.csv')` throws. */
function errorOf(text: string): SpecError {
  try {
    parseLatencySamples(text, 'lat.csv');
  } catch (error) {
    if (!isSpecError(error)) throw error;
    return error;
  }
  throw new Error(`parsed without error: ${JSON.stringify(text)}`);
}

describe('parseLatencySamples', () => {
  it('reads one latency a line, after an optional header, skipping blank lines and CRs', () => {
    const latencies = (text: string) =>
      parseLatencySamples(text, 'lat.csv').map((sample) => sample.latency);
    expect(latencies('latency_s\n0.12\n\n0.5\n')).toEqual([0.12, 0.5]);
    expect(latencies('0.1\r\n0.2\r\n\r\n1e-3\r\n')).toEqual([0.1, 0.2, 0.001]);
    expect(latencies('\n  +.5  \n')).toEqual([0.5]);
    expect(parseLatencySamples('0.3\n', 'lat.csv')).toEqual([{ latency: 0.3 }]);
  });

  it('names the file and line of the first bad line, on one line', () => {
    const error = errorOf('latency_s\n0.1\n0.2\nfast\n0.3\n');
    expect(error.message).toBe(
      'lat.csv:4: expected a latency in seconds (a positive number), got "fast"',
    );
    expect(error.code).toBe('DIFFTRY_SPEC_INVALID');
    expect(error.file).toBe('lat.csv');
    expect(error.line).toBe(4);
    expect(errorOf('0.1\n-0.2\n').line).toBe(2);
    expect(errorOf('latency\n0\n').line).toBe(2);
    // Only the first non-blank line may be a header.
    expect(errorOf('latency\nseconds\n').line).toBe(2);
  });

  it('refuses a file without a latency, naming the file', () => {
    expect(errorOf('latency_s\n\n').message).toBe(
      'lat.csv: expected latencies in seconds, one a line, found none',
    );
    expect(errorOf('').message).toContain('found none');
  });
});
