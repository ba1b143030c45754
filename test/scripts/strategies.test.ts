// The pure helpers behind scripts/strategies.ts (docs/strategies.*): the panel chart's axes and
// SVG (number and CSV formatting: test/report/numberFormat.test.ts, test/report/csv.test.ts).
import { describe, expect, it } from 'vitest';
import { escapeXml } from '../../src/report/escapeXml.js';
import { niceAxis, panelChartSvg } from '../../src/report/panelChart.js';

describe('niceAxis', () => {
  it.each([
    [0.62, 0.8, 0.2],
    [17.4, 20, 5],
    [0.98, 1, 0.2],
    [6.47, 8, 2],
    [1, 1, 0.2],
    [250, 250, 50],
    [0.013, 0.015, 0.005],
  ])('%f → top %f, step %f', (max, top, step) => {
    expect(niceAxis(max)).toEqual({ max: top, step });
  });

  it('tops every value with at most the asked number of intervals', () => {
    for (let x = 0.001; x < 1e4; x *= 1.37) {
      const { max, step } = niceAxis(x);
      expect(max).toBeGreaterThanOrEqual(x);
      expect(max / step).toBeLessThanOrEqual(5 + 1e-9);
      expect(Math.abs(max / step - Math.round(max / step))).toBeLessThan(1e-9);
    }
  });

  it('falls back to [0, 1] for a max that is not positive and finite', () => {
    expect(niceAxis(0)).toEqual({ max: 1, step: 0.2 });
    expect(niceAxis(Number.NaN)).toEqual({ max: 1, step: 0.2 });
  });
});

describe('panelChartSvg', () => {
  const chart = {
    title: 'A & B',
    xLabel: 'γ_low',
    xTicks: [50, 150, 250],
    columns: 2,
    series: [
      { key: 'a', label: 'series <a>', color: '#1f77b4' },
      { key: 'b', label: 'b', color: '#ff7f0e', dash: '3 3', marker: 'none' as const },
    ],
    panels: [
      {
        title: 'one',
        yLabel: 'rejection',
        yMax: 0.8,
        lines: [
          {
            series: 'a',
            points: [
              { x: 50, y: 0.1, ci95: 0.02 },
              { x: 150, y: Number.NaN },
              { x: 250, y: 0.5 },
            ],
          },
        ],
      },
      { title: 'two', yLabel: 'attempts', lines: [{ series: 'b', points: [{ x: 50, y: 4.8 }] }] },
    ],
    notes: ['a note'],
  };

  it('draws every panel, series and note, escaping text, skipping points that are not finite', () => {
    const svg = panelChartSvg(chart);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('A &amp; B');
    expect(svg).toContain('series &lt;a&gt;');
    expect(svg).toContain('>one</text>');
    expect(svg).toContain('>two</text>');
    expect(svg).toContain('a note');
    expect(svg).not.toContain('NaN');
    // Series a: one polyline through its two finite points, one confidence bar.
    expect(svg.match(/<polyline /g)).toHaveLength(1);
    expect(svg.match(/stroke-width="1.2"/g)).toHaveLength(1);
  });

  it('is deterministic', () => {
    expect(panelChartSvg(chart)).toBe(panelChartSvg(chart));
  });

  it('refuses a line of an unknown series', () => {
    const bad = {
      ...chart,
      panels: [{ title: 'x', yLabel: 'y', lines: [{ series: 'z', points: [] }] }],
    };
    expect(() => panelChartSvg(bad)).toThrow(/no series z/);
  });

  it('escapes the XML special characters', () => {
    expect(escapeXml('<a href="x">&</a>')).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;');
  });
});
