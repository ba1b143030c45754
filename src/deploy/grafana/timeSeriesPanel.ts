import type { DataQuery, DataSourceRef, GridPos, Panel } from '@grafana/schema';

/**
 * Holds only when `From` is assignable to `To`: a compile-time proof that a target below is a
 * Grafana `DataQuery`.
 */
type Assignable<From extends To, To> = From;

/**
 * One Prometheus query of a panel, as Grafana's Prometheus data source saves it: a `DataQuery`
 * (a type alias, not an interface, so that it also fits `Panel.targets`' records).
 */
export type PrometheusTarget = Assignable<
  {
    /** The query's name within its panel: `A`, `B`, … */
    refId: string;
    /** The PromQL expression. */
    expr: string;
    /** The series' names in the legend: `{{class}}`, `p95 {{class}}`. */
    legendFormat: string;
    /** A range query (a time series), not an instant one. */
    range: true;
    /** Shown as code in the query editor (the builder cannot show every expression). */
    editorMode: 'code';
    datasource: DataSourceRef;
  },
  DataQuery
>;

/** The data source of every panel: the dashboard's `datasource` variable, a Prometheus. */
export const PROMETHEUS_DATASOURCE: DataSourceRef = {
  type: 'prometheus',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not JavaScript's
  uid: '${datasource}',
};

/** One query of a {@link TimeSeriesPanelSpec}. */
export interface QuerySpec {
  /** The PromQL expression. */
  readonly expr: string;
  /** Grafana's legend format: `{{class}}` stands for the series' `class` label. */
  readonly legend: string;
}

/** What a time-series panel shows, before it gets its id and place. */
export interface TimeSeriesPanelSpec {
  readonly title: string;
  /** What the panel shows and how it is computed, in plain words (the panel's ⓘ). */
  readonly description: string;
  /** Grafana's unit id: `percentunit`, `reqps`, `s`, `none`. */
  readonly unit: string;
  /** The y axis' lower bound, when it is fixed. */
  readonly min?: number;
  /** The y axis' upper bound, when it is fixed (a share lies in [0, 1]). */
  readonly max?: number;
  readonly queries: readonly QuerySpec[];
}

/**
 * A Grafana time-series panel over Prometheus queries, with a legend below and a tooltip
 * listing every series. Queries get the refIds A, B, … in order.
 */
export function timeSeriesPanel(spec: TimeSeriesPanelSpec, id: number, gridPos: GridPos): Panel {
  const targets: PrometheusTarget[] = spec.queries.map((query, i) => ({
    refId: String.fromCharCode(65 + i),
    expr: query.expr,
    legendFormat: query.legend,
    range: true,
    editorMode: 'code',
    datasource: { ...PROMETHEUS_DATASOURCE },
  }));
  return {
    id,
    type: 'timeseries',
    title: spec.title,
    description: spec.description,
    datasource: { ...PROMETHEUS_DATASOURCE },
    gridPos,
    targets,
    fieldConfig: {
      defaults: {
        unit: spec.unit,
        ...(spec.min !== undefined && { min: spec.min }),
        ...(spec.max !== undefined && { max: spec.max }),
        custom: { drawStyle: 'line', lineWidth: 1, fillOpacity: 0, spanNulls: false },
      },
      overrides: [],
    },
    options: {
      legend: { showLegend: true, displayMode: 'list', placement: 'bottom', calcs: [] },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
  };
}
