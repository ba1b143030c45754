/**
 * The remaining-time header: a call's deadline as the milliseconds it has left (a relative budget,
 * like gRPC's `grpc-timeout`, so the clocks of two hops need not agree), e.g.
 * `x-difftry-deadline-ms: 1500`.
 */

const DECIMAL = /^\d+(\.\d+)?$/;

/** The remaining time a header value carries (ms), or undefined if absent or malformed. */
export function parseRemainingMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  return DECIMAL.test(text) ? Number(text) : undefined;
}

/** The header value for a deadline at `deadlineMs` seen at `nowMs`: whole ms left, never negative. */
export function formatRemainingMs(deadlineMs: number, nowMs: number): string {
  return String(Math.max(0, Math.floor(deadlineMs - nowMs)));
}
