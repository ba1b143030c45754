import { describe, expect, it } from 'vitest';
import { panelChartSvg } from '../../src/report/panelChart.js';

/** Two panels, each with its own time axis; the first shades a capacity drop. */
const chart = {
  title: 'A capacity drop',
  columns: 2,
  series: [
    { key: 'sim', label: 'simulated', color: '#1f77b4' },
    { key: 'level', label: 'analysis', color: '#d62728', dash: '2 3', marker: 'none' as const },
  ],
  panels: [
    {
      title: 'uniform',
      xLabel: 't (s)',
      yLabel: 'rejection',
      yMax: 1,
      xTicks: [0, 100, 200],
      bands: [{ from: 100, to: 110, label: 'μ × 0.3' }],
      lines: [
        {
          series: 'level',
          points: [
            { x: 0, y: 0.9 },
            { x: 200, y: 0.9 },
          ],
        },
        {
          series: 'sim',
          connect: false,
          points: [
            { x: 50, y: 0.1, ci95: 0.05 },
            { x: 150, y: 0.8 },
          ],
        },
      ],
    },
    {
      title: 'difftry',
      xLabel: 'offered load',
      yLabel: 'rejection',
      yMax: 1,
      xTicks: [10, 40, 80],
      lines: [
        {
          series: 'sim',
          points: [
            { x: 10, y: 0 },
            { x: 80, y: 0.5 },
          ],
        },
      ],
    },
  ],
};

describe('panelChartSvg, panels with their own x axes', () => {
  it('shades a band between its x values, labelled, under the marks', () => {
    const svg = panelChartSvg(chart);
    // Panel 1 plots x ∈ [0, 200] over 290 px from x = 16 + 58: the band spans 100 … 110.
    const band = svg.match(
      /<rect x="([\d.]+)" y="70" width="([\d.]+)" height="200" fill="#fde2c8"\/>/,
    );
    expect(band).not.toBeNull();
    expect(Number(band?.[1])).toBeCloseTo(74 + 145, 1);
    expect(Number(band?.[2])).toBeCloseTo(14.5, 1);
    expect(svg).toContain('μ × 0.3');
    expect(svg.indexOf('fill="#fde2c8"')).toBeLessThan(svg.indexOf('<polyline '));
  });

  it("draws each panel's own ticks and label, and markers only where connect is false", () => {
    const svg = panelChartSvg(chart);
    for (const tick of ['>100</text>', '>200</text>', '>40</text>', '>80</text>']) {
      expect(svg).toContain(tick);
    }
    expect(svg).toContain('>t (s)</text>');
    expect(svg).toContain('>offered load</text>');
    // The analysis level and panel 2's line: two polylines; panel 1's simulated points: none.
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    // Every marker comes after every line of its panel.
    const firstPanel = svg.slice(0, svg.indexOf('>difftry</text>'));
    expect(firstPanel.lastIndexOf('<polyline ')).toBeLessThan(firstPanel.indexOf('<circle '));
  });

  it('uses the layout asked for', () => {
    const width = (svg: string) => Number(svg.match(/width="(\d+)"/)?.[1]);
    const narrow = panelChartSvg({ ...chart, layout: { legendColumns: 1 } });
    const wide = panelChartSvg({
      ...chart,
      layout: { legendColumns: 1, panelWidth: 400, xGrid: false },
    });
    // Two columns of panels, each 110 px wider; the legend (one entry a row) is narrower.
    expect(width(narrow)).toBe(2 * 16 + 2 * (58 + 290 + 18));
    expect(width(wide) - width(narrow)).toBe(2 * 110);
    expect(narrow).toContain('stroke="#f0f0f0"');
    expect(wide).not.toContain('stroke="#f0f0f0"');
  });

  it('refuses a panel with no x ticks of its own or from the chart', () => {
    const [first] = chart.panels;
    const { xTicks: _, ...bare } = first as (typeof chart.panels)[number];
    expect(() => panelChartSvg({ ...chart, panels: [bare] })).toThrow(
      'panel "uniform": no x ticks (give the panel or the chart some)',
    );
  });
});
