import { InvalidArgumentError } from '../core/InvalidArgumentError.js';

/**
 * The bounds the xDS control plane puts on what clients may make it hold, read or write, in one
 * place (docs/xds.md, "Limits and logs"). Each has a default fit for a control plane of a few
 * hundred data planes; {@link XdsServerOptions.limits} changes any of them.
 */
export interface XdsLimits {
  /**
   * Concurrent streams per HTTP/2 connection (gRPC's `grpc.max_concurrent_streams`, sent to the
   * client in the connection's SETTINGS). A data plane needs one ADS stream.
   * @default 100
   */
  readonly maxConcurrentStreams: number;
  /**
   * Open ADS streams in all, over every connection. A stream beyond it ends at once with
   * RESOURCE_EXHAUSTED; each open stream holds at most its subscriptions (four types, each of
   * at most {@link maxResourceNames} names).
   * @default 1000
   */
  readonly maxStreams: number;
  /**
   * The largest DiscoveryRequest accepted, in bytes (gRPC's `grpc.max_receive_message_length`);
   * a larger one ends its stream with RESOURCE_EXHAUSTED. 4 MiB, gRPC's own default, leaves
   * room for a NACK whose `error_detail` quotes a large resource (1 MiB and more).
   * @default 4194304
   */
  readonly maxRequestBytes: number;
  /**
   * Resource names in one DiscoveryRequest (and so in one subscription). A request with more ends
   * its stream with RESOURCE_EXHAUSTED, rather than being served a part of what it asked for.
   * @default 10000
   */
  readonly maxResourceNames: number;
  /**
   * After a NACK is logged, further NACKs of the same type with the same detail on the same
   * stream are only counted for this long, in ms; the count is reported with the next NACK
   * logged, or when the stream ends.
   * @default 60000
   */
  readonly nackLogIntervalMs: number;
  /**
   * NACK lines one stream may log per {@link nackLogIntervalMs}, whatever their details; the
   * others are counted.
   * @default 5
   */
  readonly nackLinesPerInterval: number;
}

/** The default {@link XdsLimits}. */
export const DEFAULT_XDS_LIMITS: Readonly<XdsLimits> = Object.freeze({
  maxConcurrentStreams: 100,
  maxStreams: 1000,
  maxRequestBytes: 4 * 1024 * 1024,
  maxResourceNames: 10_000,
  nackLogIntervalMs: 60_000,
  nackLinesPerInterval: 5,
});

/**
 * The limits to use: `given` over {@link DEFAULT_XDS_LIMITS}, each checked.
 * @throws {RangeError} naming a limit that is not a whole number ≥ 1 (`nackLogIntervalMs`: a
 *   number ≥ 0).
 */
export function xdsLimits(given: Readonly<Partial<XdsLimits>> = {}): XdsLimits {
  const limits: XdsLimits = { ...DEFAULT_XDS_LIMITS, ...definedOnly(given) };
  for (const [name, value] of Object.entries(limits)) {
    const ok =
      name === 'nackLogIntervalMs'
        ? typeof value === 'number' && value >= 0 && Number.isFinite(value)
        : Number.isSafeInteger(value) && value >= 1;
    if (!ok) {
      const expected = name === 'nackLogIntervalMs' ? 'a number ≥ 0' : 'a whole number ≥ 1';
      throw new InvalidArgumentError(`limits.${name} should be ${expected}, got ${String(value)}`);
    }
  }
  return limits;
}

function definedOnly(given: Readonly<Partial<XdsLimits>>): Partial<XdsLimits> {
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
}
