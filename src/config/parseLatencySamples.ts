import type { LatencySample } from '../model/timeouts/LatencyDistribution.js';
import { SpecError } from './SpecError.js';

/** What each line of a latency samples file must hold. */
const EXPECTED_LATENCY = 'a latency in seconds (a positive number)';

/**
 * Parses the text of a latency samples file (`difftry timeouts fit`, the web UI's Timeouts view):
 * one positive number of seconds a line. Blank lines are skipped, Windows line ends are read too,
 * and the first non-blank line may be a header (it does not start like a number: `latency_s`).
 * Pure: the CLI reads the file, the page the dropped one, and both parse it here and estimate
 * the law with `empiricalLatency` of what it returns.
 * @param text the whole file
 * @param fileName how error messages name the file
 * @returns the samples, in file order: each a completed (uncensored) latency in seconds
 * @throws {SpecError} `DIFFTRY_SPEC_INVALID` naming the file and line of the first bad line
 *   (`lat.csv:4: expected a latency in seconds (a positive number), got "fast"`), or naming the
 *   file when it holds no latency at all.
 * @example
 * ```ts
 * empiricalLatency(parseLatencySamples('latency_s\n0.12\n0.5\n', 'lat.csv'));
 * ```
 */
export function parseLatencySamples(text: string, fileName: string): LatencySample[] {
  const samples: LatencySample[] = [];
  let seenFirst = false;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const isFirst = !seenFirst;
    seenFirst = true;
    if (isFirst && !/^[-+.\d]/.test(line)) continue;
    const value = Number(line);
    if (!(Number.isFinite(value) && value > 0)) {
      throw SpecError.of({
        code: 'DIFFTRY_SPEC_INVALID',
        file: fileName,
        line: index + 1,
        expected: EXPECTED_LATENCY,
        problem: `expected ${EXPECTED_LATENCY}, got "${line}"`,
      });
    }
    samples.push({ latency: value });
  }
  if (samples.length === 0) {
    throw SpecError.of({
      code: 'DIFFTRY_SPEC_INVALID',
      file: fileName,
      expected: 'latencies in seconds, one a line',
      problem: 'expected latencies in seconds, one a line, found none',
    });
  }
  return samples;
}
