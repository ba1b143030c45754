import { type LogicalCall, overlapsAnother } from './requestCalls.js';

/** Most branches written for one service; rarer call sets are left out (and counted). */
export const MAX_BRANCHES = 8;

/** A call as the network file writes it. */
export interface InferredCall {
  readonly to: string;
  readonly n: number;
  readonly mode: 'sequential' | 'parallel';
}

/** A service's calls as the network file writes them, and what was left out. */
export interface InferredCallShape {
  /** The calls every request makes (the same number of times). */
  readonly calls: readonly InferredCall[];
  /** The sets of further calls requests make, each with its share of the requests. */
  readonly branches: readonly { readonly p: number; readonly calls: readonly InferredCall[] }[];
  /** Requests tallied. */
  readonly requests: number;
  /** The share of requests whose call set was among the rarer ones left out. */
  readonly leftOutShare: number;
  /** Distinct call sets seen. */
  readonly callSets: number;
}

/**
 * The calls one service's requests make, tallied request by request: which callees each request
 * called how many times (its *call set*), and whether each call overlapped another of the same
 * request in time. {@link shape} turns the tally into the network file's `calls` (what every
 * request does) and `branches` (the further call sets, each with its share).
 */
export class CallShapeTally {
  private requests = 0;
  /** Call set key ("callee×n,…", sorted) → requests with it. */
  private readonly sets = new Map<string, number>();
  /** Callee → [calls made, calls that overlapped another]. */
  private readonly overlap = new Map<string, [number, number]>();

  /** Tallies one request's calls; `name` gives a callee's service name. */
  add(calls: readonly LogicalCall[], name: (service: number) => string): void {
    this.requests++;
    const counts = new Map<string, number>();
    calls.forEach((call, i) => {
      const callee = name(call.callee);
      counts.set(callee, (counts.get(callee) ?? 0) + 1);
      const seen = this.overlap.get(callee) ?? [0, 0];
      seen[0]++;
      if (overlapsAnother(calls, i)) seen[1]++;
      this.overlap.set(callee, seen);
    });
    const key = encode(counts);
    this.sets.set(key, (this.sets.get(key) ?? 0) + 1);
  }

  /**
   * The calls every request makes (each callee the least number of times any request called it,
   * where that is ≥ 1), then the rest of each call set as a branch with its share of the
   * requests, the {@link MAX_BRANCHES} most frequent kept. A call is `parallel` where at least
   * half the calls to that callee overlapped another call of their request.
   */
  shape(): InferredCallShape {
    const sets = [...this.sets].map(([key, count]) => ({ counts: decode(key), count }));
    const common = new Map<string, number>();
    const callees = new Set(sets.flatMap((set) => [...set.counts.keys()]));
    for (const callee of callees) {
      let least = Number.POSITIVE_INFINITY;
      for (const set of sets) least = Math.min(least, set.counts.get(callee) ?? 0);
      if (least >= 1) common.set(callee, least);
    }
    const rest = new Map<string, { counts: Map<string, number>; count: number }>();
    for (const set of sets) {
      const remaining = new Map<string, number>();
      for (const [callee, n] of set.counts) {
        const left = n - (common.get(callee) ?? 0);
        if (left > 0) remaining.set(callee, left);
      }
      if (remaining.size === 0) continue;
      const key = encode(remaining);
      const entry = rest.get(key) ?? { counts: remaining, count: 0 };
      entry.count += set.count;
      rest.set(key, entry);
    }
    const ranked = [...rest.values()].sort(
      (a, b) => b.count - a.count || (encode(a.counts) < encode(b.counts) ? -1 : 1),
    );
    const kept = ranked.slice(0, MAX_BRANCHES);
    const leftOut = ranked.slice(MAX_BRANCHES).reduce((sum, entry) => sum + entry.count, 0);
    const toCalls = (counts: Map<string, number>): InferredCall[] =>
      [...counts]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([to, n]) => ({ to, n, mode: this.mode(to) }));
    return {
      calls: toCalls(common),
      branches: kept.map((entry) => ({
        p: entry.count / this.requests,
        calls: toCalls(entry.counts),
      })),
      requests: this.requests,
      leftOutShare: this.requests === 0 ? 0 : leftOut / this.requests,
      callSets: this.sets.size,
    };
  }

  private mode(callee: string): 'sequential' | 'parallel' {
    const [calls, overlapped] = this.overlap.get(callee) ?? [0, 0];
    return calls > 0 && overlapped * 2 >= calls ? 'parallel' : 'sequential';
  }
}

function encode(counts: ReadonlyMap<string, number>): string {
  return [...counts]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([callee, n]) => `${callee}\u0000${n}`)
    .join('\u0001');
}

function decode(key: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (key === '') return counts;
  for (const part of key.split('\u0001')) {
    const [callee, n] = part.split('\u0000') as [string, string];
    counts.set(callee, Number(n));
  }
  return counts;
}
