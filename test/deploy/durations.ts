// Durations read back the way each platform parses them, into milliseconds.

/** A protobuf JSON duration (`"0.08s"`, Envoy's and Istio's), exactly: whole seconds, then nanos. */
export function protoDurationMs(text: string): number {
  const found = /^([0-9]+)(?:\.([0-9]{1,9}))?s$/.exec(text);
  if (found === null) throw new Error(`not a protobuf duration: ${JSON.stringify(text)}`);
  const nanos = Number((found[2] ?? '').padEnd(9, '0'));
  return Number(found[1]) * 1000 + nanos / 1e6;
}

const GATEWAY_UNITS_MS: Readonly<Record<string, number>> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
};

/**
 * A Gateway API duration (GEP-2257: up to four parts of at most five digits, each `h`, `m`, `s`
 * or `ms`: `"250ms"`, `"1s500ms"`), also what Linkerd's annotations take.
 */
export function gatewayDurationMs(text: string): number {
  if (!/^([0-9]{1,5}(h|m|s|ms)){1,4}$/.test(text)) {
    throw new Error(`not a GEP-2257 duration: ${JSON.stringify(text)}`);
  }
  let ms = 0;
  for (const [, digits, unit] of text.matchAll(/([0-9]+)(ms|h|m|s)/g)) {
    ms += Number(digits) * (GATEWAY_UNITS_MS[unit as string] as number);
  }
  return ms;
}

/**
 * A duration as Istio's validation takes it (`ValidateDuration`, for `timeout` and
 * `perTryTimeout`): a protobuf duration of at least 1 ms and a whole number of milliseconds;
 * istiod refuses the VirtualService otherwise.
 * @throws Error naming what Istio refuses.
 */
export function istioDurationMs(text: string): number {
  const ms = protoDurationMs(text);
  if (ms < 1) throw new Error(`Istio refuses ${text}: duration must be greater than 1ms`);
  if (!Number.isInteger(ms)) {
    throw new Error(`Istio refuses ${text}: only durations to ms precision are supported`);
  }
  return ms;
}
