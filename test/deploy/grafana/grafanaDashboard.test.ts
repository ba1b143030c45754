import type { GridPos, Panel, RowPanel } from '@grafana/schema';
import { describe, expect, it } from 'vitest';
import { BUILTIN_EXAMPLE_FILES } from '../../../src/config/builtinExampleFiles.js';
import { builtinExample } from '../../../src/config/examples.js';
import { loadNetworkFile } from '../../../src/config/loadNetworkFile.js';
import { parseNetwork } from '../../../src/config/parseNetwork.js';
import type { NetworkSpec } from '../../../src/config/schema.js';
import { isDifftryError } from '../../../src/core/DifftryError.js';
import { grafanaDashboard } from '../../../src/deploy/grafana/grafanaDashboard.js';
import { SIDECAR_METRIC_NAMES } from '../../../src/deploy/grafana/sidecarQueries.js';
import { groupingLabels, identifiers, isBalanced, selectors } from './promql.js';
import { sidecarSeries } from './sidecarSeries.js';

const example = (file: string) => new URL(`../../../examples/${file}`, import.meta.url).pathname;

/** The rows of a dashboard, in order. */
function rows(panels: ReadonlyArray<Panel | RowPanel> | undefined): RowPanel[] {
  return (panels ?? []).filter((panel): panel is RowPanel => panel.type === 'row');
}

/** The PromQL of every query of a panel. */
function exprs(panel: Panel): string[] {
  return (panel.targets ?? []).map((target) => target.expr as string);
}

function overlaps(a: GridPos, b: GridPos): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** The pairs of panels whose places on the grid overlap, by title. */
function overlapping(panels: readonly (Panel | RowPanel)[]): string[] {
  const found: string[] = [];
  panels.forEach((a, i) => {
    for (const b of panels.slice(i + 1)) {
      if (a.gridPos && b.gridPos && overlaps(a.gridPos, b.gridPos)) {
        found.push(`${a.title} / ${b.title}`);
      }
    }
  });
  return found;
}

/** The services each service of a network calls, in the file's order (its sidecar's upstreams). */
function upstreamsOf(network: NetworkSpec): Map<string, string[]> {
  return new Map(
    network.services.map((service) => {
      const edges = [
        ...(service.routes ?? []),
        ...(service.calls ?? []),
        ...(service.branches ?? []).flatMap((branch) => branch.calls),
      ];
      return [service.name, [...new Set(edges.map((edge) => edge.to))]];
    }),
  );
}

describe('grafanaDashboard', () => {
  it('has one collapsed row per service of hotel-calls.yaml, in the file’s order', async () => {
    const network = await loadNetworkFile(example('hotel-calls.yaml'));
    const dashboard = grafanaDashboard(network);
    expect(dashboard.title).toBe('difftry — hotel-calls');
    expect(dashboard.uid).toBe('difftry-hotel-calls');
    // Collapsed: the rows are all there is at the top level, their panels inside.
    expect(dashboard.panels?.every((panel) => panel.type === 'row')).toBe(true);
    const found = rows(dashboard.panels);
    expect(found.map((row) => row.title)).toStrictEqual([
      'frontend',
      'search',
      'geo',
      'rate',
      'reservation',
      'profile',
      'recommendation',
      'user',
    ]);
    const upstreams = upstreamsOf(network);
    for (const row of found) {
      expect(row.collapsed).toBe(true);
      const calls = (upstreams.get(row.title as string) ?? []).length > 0;
      // Inbound panels for every service; outbound ones for those that call others.
      expect(row.panels.map((panel) => panel.title)).toStrictEqual([
        'Rejection per class',
        'Admission per class',
        'Latency of admitted requests',
        ...(calls ? ['Attempts per call', 'Retries per second', 'Latency of calls out'] : []),
      ]);
    }
    expect(found.map((row) => row.panels.length)).toStrictEqual([6, 6, 3, 3, 3, 3, 3, 3]);
  });

  it('queries only series the sidecar registers, with the labels they carry, for its own row', async () => {
    const network = await loadNetworkFile(example('hotel-calls.yaml'));
    const series = await sidecarSeries(network.classes.map((c) => c.name));
    const used = new Set<string>();
    for (const row of rows(grafanaDashboard(network).panels)) {
      for (const panel of row.panels) {
        expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
        for (const expr of exprs(panel)) {
          const context = `${row.title} / ${panel.title}: ${expr}`;
          expect(isBalanced(expr), context).toBe(true);
          const found = selectors(expr);
          expect(found.length, context).toBeGreaterThan(0);
          for (const { metric, labels } of found) {
            used.add(metric);
            const carried = series.get(metric);
            expect(carried, `${context}: ${metric} is not a series of the sidecar`).toBeDefined();
            for (const label of labels)
              expect(carried?.has(label), `${context}: ${label}`).toBe(true);
            expect(labels, context).toStrictEqual(['service', 'class']);
          }
          // Every selector is this row's service, and the class variable.
          const matchers = [...expr.matchAll(/\{service="([^"]*)",class=~"\$class"\}/g)];
          expect(
            matchers.map((m) => m[1]),
            context,
          ).toStrictEqual(found.map(() => row.title));
          // Grouping labels are carried by every series they group.
          for (const label of groupingLabels(expr)) {
            for (const { metric } of found) {
              expect(series.get(metric)?.has(label), `${context}: by ${label}`).toBe(true);
            }
          }
          const { functions, bare } = identifiers(expr);
          expect(bare, context).toStrictEqual([]);
          for (const name of functions) {
            expect(['sum', 'rate', 'histogram_quantile'], context).toContain(name);
          }
          expect(expr, context).toContain('[$__rate_interval]');
        }
      }
    }
    // Every name the generator keeps is one of the sidecar's, and the dashboard uses each.
    for (const name of Object.values(SIDECAR_METRIC_NAMES)) {
      const exposed = series.has(name) || series.has(`${name}_bucket`);
      expect(exposed, `${name} is not registered by the sidecar`).toBe(true);
      expect(used.has(name) || used.has(`${name}_bucket`), `${name} unused`).toBe(true);
    }
  });

  it('draws p50, p95 and p99 from the histograms’ buckets', async () => {
    const network = await loadNetworkFile(example('hotel-calls.yaml'));
    const frontend = rows(grafanaDashboard(network).panels)[0] as RowPanel;
    const latency = frontend.panels.find((p) => p.title === 'Latency of admitted requests');
    expect(exprs(latency as Panel)).toStrictEqual(
      [0.5, 0.95, 0.99].map(
        (q) =>
          `histogram_quantile(${q}, sum by (class, le) (rate(difftry_inbound_latency_seconds_bucket{service="frontend",class=~"$class"}[$__rate_interval])))`,
      ),
    );
    const rejection = frontend.panels[0] as Panel;
    expect(exprs(rejection)[0]).toBe(
      'sum by (class) (rate(difftry_inbound_admission_rejections_total{service="frontend",class=~"$class"}[$__rate_interval])) / sum by (class) (rate(difftry_inbound_requests_total{service="frontend",class=~"$class"}[$__rate_interval]))',
    );
    expect(rejection.fieldConfig?.defaults).toMatchObject({ unit: 'percentunit', min: 0, max: 1 });
  });

  it.each(Object.keys(BUILTIN_EXAMPLE_FILES))(
    'lays out --example %s: unique ids, 24 columns, no overlap within a row',
    (name) => {
      const { fileName, text } = builtinExample(name);
      const network = parseNetwork(text, fileName);
      for (const collapsed of [true, false]) {
        const dashboard = grafanaDashboard(network, { collapsed });
        const top = dashboard.panels ?? [];
        const found = rows(top);
        expect(found.map((row) => row.title)).toStrictEqual(network.services.map((s) => s.name));
        // Open rows: each row is followed by its own panels, the next row below them all.
        const inRow = collapsed
          ? found.map((row) => row.panels)
          : found.map((row) => {
              const start = top.indexOf(row) + 1;
              const next = top.findIndex((p, i) => i >= start && p.type === 'row');
              return top.slice(start, next === -1 ? undefined : next) as Panel[];
            });
        const all = [...found, ...inRow.flat()];
        const ids = all.map((panel) => panel.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.every((id) => Number.isInteger(id) && (id as number) > 0)).toBe(true);
        found.forEach((row, i) => {
          expect(row.gridPos).toMatchObject({ x: 0, w: 24, h: 1 });
          const panels = inRow[i] as Panel[];
          expect(panels.length).toBeGreaterThan(0);
          expect(overlapping(panels), `${row.title}`).toStrictEqual([]);
          for (const panel of panels) {
            const place = panel.gridPos as GridPos;
            expect(place.x).toBeGreaterThanOrEqual(0);
            expect(place.w).toBeGreaterThan(0);
            expect(place.x + place.w).toBeLessThanOrEqual(24);
            expect(place.y).toBeGreaterThan((row.gridPos as GridPos).y);
          }
        });
        // Open, nothing at the top level overlaps anything else.
        if (!collapsed) expect(overlapping(top)).toStrictEqual([]);
        if (collapsed)
          expect(found.map((row) => row.gridPos?.y)).toStrictEqual(found.map((_, i) => i));
      }
    },
  );

  it('gives the same dashboard for the same file', async () => {
    const network = await loadNetworkFile(example('hotel-calls.yaml'));
    expect(JSON.stringify(grafanaDashboard(network))).toBe(
      JSON.stringify(grafanaDashboard(await loadNetworkFile(example('hotel-calls.yaml')))),
    );
  });

  it('selects by another service label, and escapes service names in PromQL', () => {
    const network = parseNetwork(
      [
        'classes: [{ name: gold, retries: 3 }, { name: bronze, retries: 0 }]',
        'services:',
        "  - { name: 'edge \"a\"', capacity: 10, queue: 5, arrivals: { gold: 1 }, calls: [{ to: 'b\\c(' }] }",
        "  - { name: 'b\\c(', capacity: 10, queue: 5 }",
      ].join('\n'),
      'quoted.yaml',
    );
    const dashboard = grafanaDashboard(network, { serviceLabel: 'exported_service' });
    expect(dashboard.title).toBe('difftry — network');
    const [edge, leaf] = rows(dashboard.panels);
    for (const expr of (edge as RowPanel).panels.flatMap(exprs)) {
      expect(isBalanced(expr)).toBe(true);
      expect(expr).toContain('{exported_service="edge \\"a\\"",class=~"$class"}');
      expect(expr).not.toMatch(/[{,]service=/);
    }
    for (const expr of (leaf as RowPanel).panels.flatMap(exprs)) {
      expect(isBalanced(expr)).toBe(true);
      expect(expr).toContain('{exported_service="b\\\\c(",class=~"$class"}');
    }
    const classVariable = dashboard.templating?.list?.find((v) => v.name === 'class');
    expect(classVariable?.query).toBe('gold,bronze');
  });

  it('refuses a service label Prometheus could not match on', async () => {
    const network = await loadNetworkFile(example('hotel-calls.yaml'));
    for (const label of ['', '1service', 'service-name', '__name__', 'a b']) {
      let caught: unknown;
      try {
        grafanaDashboard(network, { serviceLabel: label });
      } catch (error) {
        caught = error;
      }
      expect(caught, label).toBeInstanceOf(RangeError);
      expect(isDifftryError(caught) && caught.code).toBe('DIFFTRY_INVALID_ARGUMENT');
      expect((caught as Error).message).toContain(`got "${label}"`);
    }
  });
});
