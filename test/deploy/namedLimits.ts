import {
  envoyLimits,
  GRPC_MAX_ATTEMPTS,
  grpcCappedClasses,
} from '../../src/deploy/envoyGrpcLimits.js';
import type { Deployment } from './deployment.js';
import type { Reading } from './hopReadings.js';
import { type ReadHop, sameHop } from './readHop.js';

// The limits a generator's output names (its `limits`, the comments of a generated file): where
// a platform cannot do what the network file says, the output must say so, and a difference the
// output names is not a mismatch.

/** The retries a proxyless gRPC client makes on a served route of `served` retries (gRFC A6). */
export function grpcClientRetries(served: number): number {
  return Math.min(served, GRPC_MAX_ATTEMPTS - 1);
}

/**
 * The sentence naming gRPC's cap for class `className` at a hop of k retries: the class is among
 * `grpcCappedClasses` with its largest k at least this one, and `envoyLimits` says so.
 */
export function grpcCapNamed(d: Deployment, className: string, k: number): string | undefined {
  const capped = grpcCappedClasses(d.plan).find((c) => c.className === className);
  if (capped === undefined || capped.retries < k) return undefined;
  return envoyLimits(d.plan).find((sentence) => sentence.includes(`class ${className} `));
}

/** The limits of the output a reading comes from. */
function limitsOf(d: Deployment, consumer: string): readonly string[] {
  if (consumer.startsWith('istio')) return d.istio.limits;
  if (consumer.startsWith('linkerd')) return d.linkerd.limits;
  if (consumer.startsWith('gateway-api')) return d.gatewayApi.limits;
  if (consumer.startsWith('envoy') || consumer.startsWith('xds')) return envoyLimits(d.plan);
  return [];
}

/** The outputs whose durations are whole milliseconds (GEP-2257; Istio's validation). */
const WHOLE_MS = /^(istio|linkerd|gateway-api)/;
/** The outputs that match the class header case-sensitively (Gateway API's `Exact`). */
const CASE_SENSITIVE = /^(linkerd|gateway-api)/;

/** The request a reading answers, and the hops it may get instead of its own. */
export interface RequestContext {
  /** The class header's value; undefined for none. */
  readonly classValue: string | undefined;
  /** The hop of the default class at the same place. */
  readonly defaultHop: ReadHop;
}

/**
 * The sentence of the output that names why `reading` differs from `expected`, if it does:
 * - a per-try timeout with a fraction of a millisecond, which an output of whole milliseconds
 *   rounds up (or, Istio, refuses), where the output's limits speak of milliseconds;
 * - a class header in another case than the class's name, which an output matching it
 *   case-sensitively gives the default class, where its limits say it is case-sensitive.
 */
export function namedLimit(
  d: Deployment,
  reading: Reading,
  expected: ReadHop,
  request: RequestContext,
): string | undefined {
  const limits = limitsOf(d, reading.consumer);
  const named: string[] = [];
  let want = expected;
  const value = request.classValue;
  const otherCase =
    value !== undefined &&
    !d.plan.classes.includes(value) &&
    d.plan.classes.some((c) => c.toLowerCase() === value.toLowerCase());
  if (CASE_SENSITIVE.test(reading.consumer) && otherCase) {
    const sentence = limits.find((line) => /case-sensitive/i.test(line));
    if (sentence === undefined) return undefined;
    named.push(sentence);
    want = request.defaultHop;
  }
  if (reading.noRetry) want = { ...want, retries: 0 };
  if (reading.hop !== undefined && sameHop(reading.hop, want)) return named.join(' ') || undefined;
  const timeout = want.timeoutMs;
  if (WHOLE_MS.test(reading.consumer) && timeout !== undefined && !Number.isInteger(timeout)) {
    const rounded =
      reading.error !== undefined ||
      (reading.hop?.retries === want.retries && reading.hop?.timeoutMs === Math.ceil(timeout));
    const sentence = limits.find((line) => /millisecond/i.test(line));
    if (rounded && sentence !== undefined) return [...named, sentence].join(' ');
  }
  return undefined;
}
