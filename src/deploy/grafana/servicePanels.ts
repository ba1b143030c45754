import type { Panel } from '@grafana/schema';
import {
  admittedRate,
  attemptRejectionShare,
  attemptsPerCall,
  callRejectionShare,
  latencyQuantile,
  retryRate,
  type SeriesScope,
  SIDECAR_METRIC_NAMES,
  shedRate,
} from './sidecarQueries.js';
import { type QuerySpec, type TimeSeriesPanelSpec, timeSeriesPanel } from './timeSeriesPanel.js';

/** Grafana's grid: 24 columns. */
export const GRID_COLUMNS = 24;

/** Every panel of a service's row is a third of the grid's width, three to a line. */
export const PANEL_WIDTH = 8;
/** Every panel is 8 grid units high (Grafana's unit is 30 px). */
export const PANEL_HEIGHT = 8;

/** The latency quantiles drawn from the sidecar's histograms. */
const QUANTILES = [0.5, 0.95, 0.99] as const;

/** What a service's row needs to know about it: its name and whether it calls anything. */
export interface ServiceView {
  /** The service's name in the network file (what its sidecar reports in `service`). */
  readonly name: string;
  /** The services it calls (its sidecar's upstreams), in the file's order; empty for a leaf. */
  readonly upstreams: readonly string[];
}

/** p50, p95 and p99 of a histogram, per class. */
function latencyQueries(metric: string, scope: SeriesScope): QuerySpec[] {
  return QUANTILES.map((quantile) => ({
    expr: latencyQuantile(metric, quantile, scope),
    legend: `p${Math.round(quantile * 100)} {{class}}`,
  }));
}

/**
 * What a service's row shows, in order. First what happens to the requests arriving at its
 * sidecar (every service has an inbound listener): the rejection share per class, admitted
 * against shed requests, and their latency. Then, for a service that calls others, its calls
 * out: attempts per call, retries per upstream and class, and the calls' latency. A leaf has no
 * outbound series (its sidecar has no upstreams), so its row has no outbound panels.
 */
export function servicePanelSpecs(service: ServiceView, scope: SeriesScope): TimeSeriesPanelSpec[] {
  const calls = service.upstreams.length > 0;
  const rejection: TimeSeriesPanelSpec = {
    title: 'Rejection per class',
    description:
      'Attempts refused here: the share of the requests arriving at this service that admission ' +
      'refused with 503 (the attempt rejection s at this service). ' +
      (calls
        ? "Calls failed after retries: the share of this service's calls out whose last attempt " +
          "was rejected with the class's retries used up (DiffTry's R per class)."
        : 'This service calls no other, so it has no calls out.'),
    unit: 'percentunit',
    min: 0,
    max: 1,
    queries: [
      { expr: attemptRejectionShare(scope), legend: '{{class}} attempts refused here' },
      ...(calls
        ? [{ expr: callRejectionShare(scope), legend: '{{class}} calls failed after retries' }]
        : []),
    ],
  };
  const admission: TimeSeriesPanelSpec = {
    title: 'Admission per class',
    description:
      'Requests per second arriving at this service that admission let in, and those it shed ' +
      '(refused at once with 503 because m requests were in the system).',
    unit: 'reqps',
    min: 0,
    queries: [
      { expr: admittedRate(scope), legend: '{{class}} admitted' },
      { expr: shedRate(scope), legend: '{{class}} shed' },
    ],
  };
  const inboundLatency: TimeSeriesPanelSpec = {
    title: 'Latency of admitted requests',
    description:
      "p50, p95 and p99 per class of the admitted requests' durations at this service, waiting " +
      "for admission included, from the sidecar's inbound histogram.",
    unit: 's',
    min: 0,
    queries: latencyQueries(SIDECAR_METRIC_NAMES.inboundLatency, scope),
  };
  if (!calls) return [rejection, admission, inboundLatency];
  return [
    rejection,
    admission,
    inboundLatency,
    {
      title: 'Attempts per call',
      description:
        'Attempts sent upstream per call this service made, per class: 1 with no retry, at ' +
        "most the class's retry limit k + 1.",
      unit: 'none',
      min: 0,
      queries: [{ expr: attemptsPerCall(scope), legend: '{{class}}' }],
    },
    {
      title: 'Retries per second',
      description: `Retries the DiffTry policy decided per second, per upstream (${service.upstreams.join(', ')}) and class.`,
      unit: 'reqps',
      min: 0,
      queries: [{ expr: retryRate(scope), legend: '{{upstream}} {{class}}' }],
    },
    {
      title: 'Latency of calls out',
      description:
        "p50, p95 and p99 per class of the durations of this service's calls out, every retry " +
        "and backoff included, to the end of the response, from the sidecar's outbound histogram.",
      unit: 's',
      min: 0,
      queries: latencyQueries(SIDECAR_METRIC_NAMES.outboundLatency, scope),
    },
  ];
}

/**
 * A service's panels laid out on the grid, three to a line, from grid line `top` down, with the
 * ids `firstId`, `firstId + 1`, … in order.
 * @returns the panels and the grid line below the last of them.
 */
export function servicePanels(
  service: ServiceView,
  scope: SeriesScope,
  firstId: number,
  top: number,
): { panels: Panel[]; bottom: number } {
  const perLine = GRID_COLUMNS / PANEL_WIDTH;
  const specs = servicePanelSpecs(service, scope);
  const panels = specs.map((spec, i) =>
    timeSeriesPanel(spec, firstId + i, {
      x: (i % perLine) * PANEL_WIDTH,
      y: top + Math.floor(i / perLine) * PANEL_HEIGHT,
      w: PANEL_WIDTH,
      h: PANEL_HEIGHT,
    }),
  );
  return { panels, bottom: top + Math.ceil(specs.length / perLine) * PANEL_HEIGHT };
}
