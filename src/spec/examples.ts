import { formatValue } from './formatValue.js';
import { SpecError } from './SpecError.js';

/**
 * The text of `examples/single-service.yaml`: one service `frontend` (capacity 143 requests/s,
 * queue 50) with arrivals of 50 high and 250 low requests/s; high retries 5 times, low once.
 */
const SINGLE_SERVICE_YAML = `# One service, two priority classes: the smallest network difftry analyses.
# Rates are in requests per second.
model: mixed # fluid | mm1m | mixed
classes: # first class = highest priority
  - { name: high, retries: 5 }
  - { name: low, retries: 1 }
services:
  - name: frontend
    capacity: 143 # μ, requests/s
    queue: 50 # m, the most requests in the system
    arrivals: { high: 50, low: 250 } # external γ, requests/s
`;

/** The text of `examples/two-tier.yaml`: a frontend routing to two backends, with comments. */
const TWO_TIER_YAML = `# A two-tier routing network: a frontend in front of two backends.
# Rates are in requests per second, delays in milliseconds.
name: two-tier
description: A frontend that sends most requests on to search and some to profile.
model: mixed # φ for every service: fluid | mm1m | mixed (a service may override it)

classes: # the first class is the highest priority
  - name: high
    retries: 5 # k: a rejected attempt is retried at most 5 times at each hop
  - name: low
    retries: 1
    # Retry delay, used by the simulator and the runtime (not by the analysis).
    backoff: { kind: exponential, baseMs: 50, maxMs: 800, jitter: full }

services:
  - name: frontend
    capacity: 300 # μ: requests/s served when busy
    queue: 50 # m: the most requests in the system (M/M/1/m)
    arrivals: { high: 40, low: 200 } # external γ, requests/s per class
    routes: # after a request succeeds here, it goes on to service "to" with probability p
      - { to: search, p: 0.6 } # no class: applies to every class
      - { to: profile, p: 0.3, class: high } # only high requests visit profile
    # The rest (high 10 %, low 40 %) leave the network after the frontend.

  - name: search
    capacity: 150
    queue: 30
    retries: { low: 0 } # per-service override of k: low is never retried here
    serviceTime: { dist: lognormal, scv: 2 } # the mean is always 1/capacity
    residual: true # residual-time correction for variable service times

  - name: profile
    capacity: 80
    queue: 20
    model: mm1m # override the network's model for this service
`;

const BUILTIN_EXAMPLES: Readonly<
  Record<string, { readonly fileName: string; readonly text: string }>
> = Object.freeze({
  single: { fileName: 'examples/single-service.yaml', text: SINGLE_SERVICE_YAML },
  'two-tier': { fileName: 'examples/two-tier.yaml', text: TWO_TIER_YAML },
});

/** The names {@link builtinExample} accepts: `single`, `two-tier`. */
export const BUILTIN_EXAMPLE_NAMES: readonly string[] = Object.freeze(
  Object.keys(BUILTIN_EXAMPLES),
);

/**
 * A network file shipped inside difftry, as text, for `--example NAME`: the text is embedded,
 * not read from disk, so it works wherever the package is installed. Parse it with
 * `parseNetwork(text, fileName)`.
 *
 * - `single`: exactly `examples/single-service.yaml`;
 * - `two-tier`: exactly `examples/two-tier.yaml`.
 *
 * @throws {SpecError} `DIFFTRY_SPEC_UNREADABLE`, listing the available names, for an unknown name.
 *
 * @example
 * ```ts
 * const { fileName, text } = builtinExample('single');
 * const network = parseNetwork(text, fileName);
 * ```
 */
export function builtinExample(name: string): { fileName: string; text: string } {
  const example = Object.hasOwn(BUILTIN_EXAMPLES, name) ? BUILTIN_EXAMPLES[name] : undefined;
  if (example !== undefined) return { fileName: example.fileName, text: example.text };
  const expected = `a built-in example (${BUILTIN_EXAMPLE_NAMES.join(', ')})`;
  throw SpecError.of({
    code: 'DIFFTRY_SPEC_UNREADABLE',
    file: '',
    expected,
    problem: `expected ${expected}, got ${formatValue(name)}`,
  });
}
