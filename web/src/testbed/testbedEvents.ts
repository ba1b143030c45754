/**
 * The testbed's server-sent events as the page reads them (the server's `TestbedEvent`,
 * src/ui/TestbedJob.ts), and the points they add up to.
 */
export type TestbedEventData =
  | { kind: 'started'; request: { kind: 'run' | 'fig5' }; points: number }
  | { kind: 'progress'; fraction: number; label: string }
  | {
      kind: 'point';
      x: number;
      k: string;
      classes: { name: string; measured: number; ci95: number; predicted: number; p50: number }[];
    }
  | { kind: 'done'; seconds: number }
  | { kind: 'stopped'; seconds: number }
  | { kind: 'error'; message: string };

/** One class at one measured point, flat for the chart and the table. */
export interface MeasuredPoint {
  readonly x: number;
  readonly k: string;
  readonly className: string;
  readonly measured: number;
  readonly ci95: number;
  readonly predicted: number;
  readonly p50: number;
}

/** Every class-point of the events so far, in arrival order. */
export function pointsFromEvents(events: readonly TestbedEventData[]): MeasuredPoint[] {
  return events.flatMap((event) =>
    event.kind === 'point'
      ? event.classes.map((c) => ({
          x: event.x,
          k: event.k,
          className: c.name,
          measured: c.measured,
          ci95: c.ci95,
          predicted: c.predicted,
          p50: c.p50,
        }))
      : [],
  );
}
