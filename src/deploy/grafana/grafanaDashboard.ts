import type { Dashboard, Panel, RowPanel, VariableModel } from '@grafana/schema';
import type { NetworkSpec } from '../../config/schema.js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { meshPlan } from '../meshPlan.js';
import { dashboardUid } from './dashboardUid.js';
import { GRID_COLUMNS, type ServiceView, servicePanels } from './servicePanels.js';
import type { SeriesScope } from './sidecarQueries.js';

/**
 * The dashboard JSON's schema version: Grafana 10.4's. Later Grafanas migrate it forward on
 * import; an earlier one would not know it.
 */
export const DASHBOARD_SCHEMA_VERSION = 39;

/** Options of {@link grafanaDashboard}. */
export interface GrafanaDashboardOptions {
  /**
   * The network's name, in the title and the uid; default the file's `name`, else `network`.
   * @default the network file's `name`, else `'network'`
   */
  readonly name?: string;
  /**
   * The Prometheus label that names a series' service. The sidecar puts `service` on every
   * series it exports; give another label where the scrape renamed it (a target label
   * `service` set by the scrape turns the sidecar's into `exported_service`).
   * @default 'service'
   */
  readonly serviceLabel?: string;
  /**
   * Whether every service's row starts collapsed (its panels inside the row) or open.
   * @default true
   */
  readonly collapsed?: boolean;
}

/** A Prometheus label name that a query may match on (no reserved `__` prefix). */
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The dashboard variables: the Prometheus data source, and the classes shown. */
function variables(classes: readonly string[]): VariableModel[] {
  return [
    {
      name: 'datasource',
      label: 'Data source',
      type: 'datasource',
      query: 'prometheus',
      refresh: 1,
      regex: '',
      hide: 0,
      includeAll: false,
      multi: false,
      options: [],
    },
    {
      name: 'class',
      label: 'Class',
      description: "The priority classes shown, highest first (the network file's classes).",
      type: 'custom',
      // A custom variable's values, comma-separated: class names are HTTP tokens, never commas.
      query: classes.join(','),
      hide: 0,
      includeAll: true,
      multi: true,
      current: { text: ['All'], value: ['$__all'] },
      options: [
        { text: 'All', value: '$__all', selected: true },
        ...classes.map((name) => ({ text: name, value: name, selected: false })),
      ],
    },
  ];
}

/**
 * A Grafana dashboard for the difftry sidecars of a network (`difftry mesh grafana`): one
 * collapsible row per service, in the file's order, titled with the service's name. Each row
 * shows, from the Prometheus metrics of that service's sidecar (docs/mesh.md, "Metrics"): the
 * rejection share per class, admitted against shed requests, the admitted requests' latency
 * (p50, p95, p99), and for a service that calls others, attempts per call, retries per second
 * per upstream and class, and the calls' latency. Series are picked by the sidecar's `service`
 * label (`serviceLabel`) and the `class` variable; the data source is the `datasource` variable.
 *
 * Panel ids run 1, 2, … in order (each row, then its panels) and every place on the 24-column
 * grid follows from the file alone, so the same file gives the same JSON. The uid comes from the
 * network's name ({@link dashboardUid}), so a regenerated dashboard replaces the earlier one.
 * @throws InvalidArgumentError when `serviceLabel` is not a Prometheus label name.
 * @example
 * ```ts
 * const dashboard = grafanaDashboard(await loadNetworkFile('examples/hotel-calls.yaml'));
 * dashboard.title; // 'difftry — hotel-calls'
 * JSON.stringify(dashboard, null, 2); // import it into Grafana
 * ```
 */
export function grafanaDashboard(
  network: NetworkSpec,
  options: GrafanaDashboardOptions = {},
): Dashboard {
  const serviceLabel = options.serviceLabel ?? 'service';
  if (!LABEL_NAME.test(serviceLabel) || serviceLabel.startsWith('__')) {
    throw new InvalidArgumentError(
      `serviceLabel should be a Prometheus label name (letters, digits and _, not starting with a digit or __), got "${serviceLabel}"`,
    );
  }
  const name = options.name ?? network.name ?? 'network';
  const collapsed = options.collapsed ?? true;
  const plan = meshPlan(network);
  const services: ServiceView[] = plan.services.map((service) => ({
    name: service.name,
    upstreams: service.upstreams.map((upstream) => upstream.service),
  }));

  const panels: Array<Panel | RowPanel> = [];
  let nextId = 1;
  let top = 0;
  for (const service of services) {
    const scope: SeriesScope = { serviceLabel, service: service.name, classVariable: 'class' };
    const rowId = nextId;
    const inside = servicePanels(service, scope, rowId + 1, top + 1);
    nextId = rowId + 1 + inside.panels.length;
    panels.push({
      id: rowId,
      type: 'row',
      title: service.name,
      collapsed,
      gridPos: { x: 0, y: top, w: GRID_COLUMNS, h: 1 },
      // A collapsed row holds its panels; an open one is followed by them.
      panels: collapsed ? inside.panels : [],
    });
    if (!collapsed) panels.push(...inside.panels);
    // Collapsed rows sit one under the other; Grafana moves a row's panels when it opens.
    top = collapsed ? top + 1 : inside.bottom;
  }

  return {
    id: null,
    uid: dashboardUid(name),
    title: `difftry — ${name}`,
    description: `The difftry sidecars of ${name}: one row per service (generated by difftry mesh grafana; see docs/mesh.md).`,
    tags: ['difftry'],
    editable: true,
    graphTooltip: 1,
    timezone: 'browser',
    refresh: '30s',
    time: { from: 'now-1h', to: 'now' },
    schemaVersion: DASHBOARD_SCHEMA_VERSION,
    version: 1,
    links: [],
    annotations: { list: [] },
    templating: { list: variables(plan.classes) },
    panels,
  };
}
