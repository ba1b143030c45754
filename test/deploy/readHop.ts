// What every read-back gives for one class on one hop, and how two of them are compared.

/** A hop's policy as one consumer has it: the retries after the first attempt, the per-try timeout. */
export interface ReadHop {
  /** Retries after the first attempt. */
  readonly retries: number;
  /** Per-try timeout in milliseconds, the first attempt included; undefined for none. */
  readonly timeoutMs: number | undefined;
}

/** The same duration in ms, up to a relative 1e-9 (seconds ↔ ms conversions), or both none. */
export function sameMs(a: number | undefined, b: number | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

/** Whether two read-backs agree on the retries and the per-try timeout. */
export function sameHop(a: ReadHop, b: ReadHop): boolean {
  return a.retries === b.retries && sameMs(a.timeoutMs, b.timeoutMs);
}

/** A hop as one line: `k=3 T=80ms`, `k=0 T=none`. */
export function formatHop(hop: ReadHop): string {
  return `k=${hop.retries} T=${hop.timeoutMs === undefined ? 'none' : `${hop.timeoutMs}ms`}`;
}

/** The smaller of two optional limits (undefined is none, so larger than any). */
export function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
