/**
 * The time a service was busy, from the intervals in which one of its requests was in its own
 * part (queued or served there, not waiting for a callee): the length of their union inside a
 * window. With the requests it completed, it gives the service's capacity by the utilization
 * law, μ = X / U (throughput over busy share): for a single server (M/M/1/m) the busy periods
 * are exactly the times some request is in its own part, whatever the queue does.
 */
export class BusyTime {
  private starts: number[] = [];
  private ends: number[] = [];

  /** Adds the interval [start, end] (seconds); empty ones are ignored. */
  add(start: number, end: number): void {
    if (!(end > start)) return;
    this.starts.push(start);
    this.ends.push(end);
  }

  /** Adds [start, end] minus the union of `holes` (each [from, to], in any order). */
  addExcluding(start: number, end: number, holes: readonly (readonly [number, number])[]): void {
    if (holes.length === 0) {
      this.add(start, end);
      return;
    }
    const sorted = [...holes].sort((a, b) => a[0] - b[0]);
    let from = start;
    for (const [a, b] of sorted) {
      if (b <= from) continue;
      if (a >= end) break;
      if (a > from) this.add(from, a);
      from = Math.max(from, b);
      if (from >= end) return;
    }
    this.add(from, end);
  }

  /** Intervals added. */
  get count(): number {
    return this.starts.length;
  }

  /** The length (seconds) of the union of the intervals within [from, to]. */
  within(from: number, to: number): number {
    const order = Array.from(this.starts.keys()).sort(
      (i, j) => (this.starts[i] as number) - (this.starts[j] as number),
    );
    let total = 0;
    let runStart = Number.NaN;
    let runEnd = Number.NEGATIVE_INFINITY;
    const close = () => {
      if (Number.isNaN(runStart)) return;
      const a = Math.max(runStart, from);
      const b = Math.min(runEnd, to);
      if (b > a) total += b - a;
    };
    for (const i of order) {
      const s = this.starts[i] as number;
      const e = this.ends[i] as number;
      if (s > runEnd) {
        close();
        runStart = s;
        runEnd = e;
      } else if (e > runEnd) {
        runEnd = e;
      }
    }
    close();
    return total;
  }
}
