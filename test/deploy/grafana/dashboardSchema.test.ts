import {
  type Dashboard,
  defaultDashboard,
  type Panel,
  type RowPanel,
  type VariableModel,
} from '@grafana/schema';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { loadNetworkFile } from '../../../src/config/loadNetworkFile.js';
import {
  DASHBOARD_SCHEMA_VERSION,
  grafanaDashboard,
} from '../../../src/deploy/grafana/grafanaDashboard.js';

const example = (file: string) => new URL(`../../../examples/${file}`, import.meta.url).pathname;

describe('the dashboard against @grafana/schema', () => {
  it('is a Dashboard of @grafana/schema (checked by tsc --noEmit, which compiles this file)', async () => {
    // The generator's return type is the package's type, not a look-alike: assigning it and the
    // JSON it becomes compiles only if every field has the schema's type.
    expectTypeOf(grafanaDashboard).returns.toEqualTypeOf<Dashboard>();
    const dashboard: Dashboard = grafanaDashboard(
      await loadNetworkFile(example('hotel-calls.yaml')),
    );
    const panels: Array<Panel | RowPanel> = dashboard.panels ?? [];
    const variables: VariableModel[] = dashboard.templating?.list ?? [];
    expect(panels.length).toBeGreaterThan(0);
    expect(variables.length).toBe(2);
  });

  it('has what Grafana’s import needs, and survives JSON unchanged', async () => {
    const dashboard = grafanaDashboard(await loadNetworkFile(example('hotel-calls.yaml')));
    const json = JSON.parse(JSON.stringify(dashboard)) as Record<string, unknown>;
    // Nothing undefined, no function, no NaN: the JSON is the object.
    expect(json).toStrictEqual(dashboard);

    expect(typeof json.schemaVersion).toBe('number');
    expect(Number.isInteger(json.schemaVersion)).toBe(true);
    // A version this schema's Grafana migrates from (its own is the newest it knows).
    expect(DASHBOARD_SCHEMA_VERSION).toBeLessThanOrEqual(defaultDashboard.schemaVersion as number);
    expect(json.id).toBeNull();
    expect(json.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(typeof json.title).toBe('string');
    expect(json.time).toStrictEqual({ from: 'now-1h', to: 'now' });
    expect(Array.isArray(json.panels)).toBe(true);
    const templating = json.templating as { list: unknown };
    expect(Array.isArray(templating.list)).toBe(true);

    const [datasource, classes] = templating.list as VariableModel[];
    expect(datasource).toMatchObject({
      name: 'datasource',
      type: 'datasource',
      query: 'prometheus',
    });
    expect(classes).toMatchObject({
      name: 'class',
      type: 'custom',
      query: 'high,low',
      multi: true,
      includeAll: true,
    });
    expect(classes?.options?.map((option) => option.value)).toStrictEqual([
      '$__all',
      'high',
      'low',
    ]);

    for (const row of json.panels as RowPanel[]) {
      // A RowPanel's required fields.
      expect(row.type).toBe('row');
      expect(typeof row.id).toBe('number');
      expect(typeof row.collapsed).toBe('boolean');
      expect(Array.isArray(row.panels)).toBe(true);
      for (const panel of row.panels) {
        // A Panel's required field, and what every panel here has.
        expect(panel.type).toBe('timeseries');
        expect(Object.keys(panel.gridPos ?? {}).sort()).toStrictEqual(['h', 'w', 'x', 'y']);
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax
        expect(panel.datasource).toStrictEqual({ type: 'prometheus', uid: '${datasource}' });
        expect(Array.isArray(panel.fieldConfig?.overrides)).toBe(true);
        expect(typeof panel.fieldConfig?.defaults.unit).toBe('string');
        const refIds = (panel.targets ?? []).map((target) => target.refId);
        expect(refIds).toStrictEqual(['A', 'B', 'C'].slice(0, refIds.length));
        for (const target of panel.targets ?? []) {
          expect(target).toMatchObject({ range: true, datasource: panel.datasource });
          expect(typeof target.expr).toBe('string');
          expect(typeof target.legendFormat).toBe('string');
        }
      }
    }
  });
});
