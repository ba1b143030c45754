/**
 * The names of the sidecar's Prometheus series that the dashboard reads (docs/mesh.md,
 * "Metrics"). They are the names `createSidecarMetrics` (src/mesh/sidecarMetrics.ts) registers:
 * `deploy` may not import `mesh`, so they are written here once, and
 * test/deploy/grafana/grafanaDashboard.test.ts checks every name the dashboard queries against
 * what a real sidecar registry exposes.
 */
export const SIDECAR_METRIC_NAMES = {
  /** Calls the application made through the outbound listener; labels `upstream`, `class`. */
  outboundRequests: 'difftry_outbound_requests_total',
  /** Attempts sent upstream that ended; labels `upstream`, `class`. */
  outboundAttempts: 'difftry_outbound_attempts_total',
  /** Retries the DiffTry policy decided; labels `upstream`, `class`. */
  outboundRetries: 'difftry_outbound_retries_total',
  /** Calls whose last attempt was rejected with the class's retries used up (R_p). */
  outboundRejections: 'difftry_outbound_rejections_total',
  /** Histogram of outbound call durations, retries included, seconds. */
  outboundLatency: 'difftry_outbound_latency_seconds',
  /** Requests that arrived at the inbound listener, admitted or not; label `class`. */
  inboundRequests: 'difftry_inbound_requests_total',
  /** Requests refused at once with 503 because m were in the system; label `class`. */
  inboundAdmissionRejections: 'difftry_inbound_admission_rejections_total',
  /** Histogram of admitted requests' durations, waiting included, seconds. */
  inboundLatency: 'difftry_inbound_latency_seconds',
} as const;

/** Which series of the dashboard's queries belong to one service, and which classes are shown. */
export interface SeriesScope {
  /** The label that names the service on every series: `service` (the sidecar's own). */
  readonly serviceLabel: string;
  /** The service's name as the sidecar reports it (its name in the network file). */
  readonly service: string;
  /** The dashboard variable holding the classes shown (a regex once Grafana expands it). */
  readonly classVariable: string;
}

/** The range every `rate` takes: Grafana's `$__rate_interval` (at least four scrape intervals). */
const RATE_INTERVAL = '$__rate_interval';

/**
 * A PromQL string literal: double-quoted, with `\` and `"` escaped (PromQL reads Go's escapes,
 * of which JSON's are a subset).
 */
export function promqlString(text: string): string {
  return JSON.stringify(text);
}

/** The label matchers of one service's series: `{service="geo",class=~"$class"}`. */
export function seriesSelector(scope: SeriesScope): string {
  return `{${scope.serviceLabel}=${promqlString(scope.service)},class=~"$${scope.classVariable}"}`;
}

/** The per-second rate of a counter (or a histogram's `_bucket`) over the service's series. */
function rate(metric: string, scope: SeriesScope): string {
  return `rate(${metric}${seriesSelector(scope)}[${RATE_INTERVAL}])`;
}

/** `sum by (labels) (expr)`. */
function sumBy(labels: readonly string[], expr: string): string {
  return `sum by (${labels.join(', ')}) (${expr})`;
}

/** The per-class rate of a counter, summed over the service's upstreams (if it has any). */
function classRate(metric: string, scope: SeriesScope): string {
  return sumBy(['class'], rate(metric, scope));
}

/**
 * The share of the attempts offered to the service that its admission refused, per class: the
 * model's attempt rejection s at this service (every arriving request is one caller's attempt).
 */
export function attemptRejectionShare(scope: SeriesScope): string {
  const m = SIDECAR_METRIC_NAMES;
  return `${classRate(m.inboundAdmissionRejections, scope)} / ${classRate(m.inboundRequests, scope)}`;
}

/**
 * The share of the service's outbound calls that failed with every retry of their class used
 * up, per class: DiffTry's R_p at the hops out of this service.
 */
export function callRejectionShare(scope: SeriesScope): string {
  const m = SIDECAR_METRIC_NAMES;
  return `${classRate(m.outboundRejections, scope)} / ${classRate(m.outboundRequests, scope)}`;
}

/** Attempts per outbound call, per class: 1 with no retry, at most k + 1. */
export function attemptsPerCall(scope: SeriesScope): string {
  const m = SIDECAR_METRIC_NAMES;
  return `${classRate(m.outboundAttempts, scope)} / ${classRate(m.outboundRequests, scope)}`;
}

/** Retries per second, per upstream and class. */
export function retryRate(scope: SeriesScope): string {
  return sumBy(['upstream', 'class'], rate(SIDECAR_METRIC_NAMES.outboundRetries, scope));
}

/** Requests per second that arrived and were not refused at admission, per class. */
export function admittedRate(scope: SeriesScope): string {
  const m = SIDECAR_METRIC_NAMES;
  return `${classRate(m.inboundRequests, scope)} - ${classRate(m.inboundAdmissionRejections, scope)}`;
}

/** Requests per second refused at admission (shed), per class. */
export function shedRate(scope: SeriesScope): string {
  return classRate(SIDECAR_METRIC_NAMES.inboundAdmissionRejections, scope);
}

/**
 * A latency quantile per class from one of the sidecar's histograms (`metric` without its
 * `_bucket` suffix), seconds: `histogram_quantile` over the buckets' rates, summed by class and
 * bucket so that upstreams and replicas merge.
 * @param quantile in (0, 1): 0.5 for the median.
 */
export function latencyQuantile(metric: string, quantile: number, scope: SeriesScope): string {
  return `histogram_quantile(${quantile}, ${sumBy(['class', 'le'], rate(`${metric}_bucket`, scope))})`;
}
