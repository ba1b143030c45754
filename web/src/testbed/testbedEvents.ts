import type { TestbedEvent } from 'difftry/ui';

/*
 * What the Testbed view draws of the server-sent events; each event's `data` is the JSON of the
 * server's own `TestbedEvent`.
 */

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

/** The class-points one `point` event brings, flat for the chart and the table. */
export function classPoints(event: Extract<TestbedEvent, { kind: 'point' }>): MeasuredPoint[] {
  return event.classes.map((c) => ({
    x: event.x,
    k: event.k,
    className: c.name,
    measured: c.measured,
    ci95: c.ci95,
    predicted: c.predicted,
    p50: c.p50,
  }));
}
