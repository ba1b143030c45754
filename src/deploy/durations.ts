import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import { wholeMs } from './wholeMsTimeouts.js';

/**
 * Milliseconds as a protobuf JSON duration, the form Envoy's and Istio's APIs take: seconds
 * with up to nine decimals and an `s` (`250` → `"0.25s"`).
 */
export function protoDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0)
    throw new InvalidArgumentError(`protoDuration: bad duration ${ms} ms`);
  return `${Number((ms / 1000).toFixed(9))}s`;
}

/**
 * Milliseconds as a Gateway API duration (GEP-2257: whole numbers of h, m, s or ms, such as
 * `"250ms"` or `"1s"`), also what Linkerd's annotations take. A fraction of a millisecond is
 * rounded up, so a timeout never becomes shorter; 0 stays `"0s"`.
 */
export function gatewayDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new InvalidArgumentError(`gatewayDuration: bad duration ${ms} ms`);
  }
  const whole = wholeMs(ms);
  if (whole === 0) return '0s';
  if (whole % 1000 === 0) return `${whole / 1000}s`;
  // GEP-2257 allows at most 5 digits per unit: above 99999 ms, seconds and the rest in ms.
  if (whole > 99_999) return `${Math.floor(whole / 1000)}s${whole % 1000}ms`;
  return `${whole}ms`;
}
