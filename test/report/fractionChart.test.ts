// The single-plot chart behind both Figure 5 SVGs (docs/figure5.svg, docs/testbed-fig5.svg).
import { describe, expect, it } from 'vitest';
import { type FractionChart, fractionChartSvg } from '../../src/report/fractionChart.js';

const chart: FractionChart = {
  title: 'Rejection <A & B>',
  xLabel: 'γ_low',
  yLabel: 'end-to-end rejection',
  width: 720,
  height: 440,
  legendWidth: 190,
  xTicks: [50, 150, 250],
  series: [
    {
      label: 'high',
      color: '#1f77b4',
      dx: -3,
      lines: [
        {
          points: [
            { x: 50, y: 0 },
            { x: 150, y: Number.NaN },
            { x: 250, y: 0.5 },
          ],
        },
        { points: [{ x: 50, y: Number.NaN }], strokeWidth: 1, dash: '1 3' },
      ],
      points: [
        { x: 50, y: 0.1, ci95: 0.05 },
        { x: 150, y: Number.NaN, ci95: 0.05 },
        { x: 250, y: 1.4 },
      ],
    },
    {
      label: 'low',
      color: '#ff7f0e',
      dash: '6 4',
      marker: 'square',
      lines: [{ points: [{ x: 50, y: 0.2 }], strokeWidth: 1, dash: '1 3' }],
      points: [],
    },
  ],
  notes: [
    { text: 'first', dy: 10 },
    { text: 'second', dy: 15, color: '#666666', fontSize: 11 },
  ],
};

// The plot of `chart`: 64 px from the left, 466 px wide; 48 px from the top, 334 px high.
const xAt = (v: number) => 64 + ((v - 50) / 200) * 466;
const yAt = (v: number) => 48 + (1 - v) * 334;

describe('fractionChartSvg', () => {
  const svg = fractionChartSvg(chart);

  it('is one SVG document of the given size, text escaped, no NaN anywhere', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="720" height="440"')).toBe(
      true,
    );
    expect(svg.endsWith('</svg>\n')).toBe(true);
    expect(svg).toContain('>Rejection &lt;A &amp; B&gt;</text>');
    expect(svg).not.toContain('NaN');
  });

  it('grids y every 0.1, labels every 0.2, and labels each x tick', () => {
    expect(svg.match(/text-anchor="end">/g)).toHaveLength(6);
    expect(svg).toContain(`y="${(yAt(0.4) + 4).toFixed(1)}" text-anchor="end">0.4</text>`);
    for (const x of [50, 150, 250]) expect(svg).toContain(`text-anchor="middle">${x}</text>`);
    // The frame only: tick marks are drawn when asked.
    expect(svg.match(/stroke="#333333"\/>/g)).toHaveLength(1);
  });

  it('draws each line through its finite points, and no line with none', () => {
    const lines = svg.match(/<polyline [^>]*>/g) ?? [];
    expect(lines).toEqual([
      `<polyline points="${xAt(50).toFixed(1)},${yAt(0).toFixed(1)} ${xAt(250).toFixed(1)},${yAt(0.5).toFixed(1)}" fill="none" stroke="#1f77b4" stroke-width="2"/>`,
      `<polyline points="${xAt(50).toFixed(1)},${yAt(0.2).toFixed(1)}" fill="none" stroke="#ff7f0e" stroke-width="1" stroke-dasharray="1 3"/>`,
    ]);
  });

  it('puts markers, shifted by dx, at finite points only, clamped into [0, 1], bars where ci95 is finite', () => {
    const circles = svg.match(/<circle [^>]*>/g) ?? [];
    // Two in the plot, one in the legend.
    expect(circles).toHaveLength(3);
    expect(circles[0]).toContain(`cx="${(xAt(50) - 3).toFixed(1)}" cy="${yAt(0.1).toFixed(1)}"`);
    expect(circles[1]).toContain(`cx="${(xAt(250) - 3).toFixed(1)}" cy="${yAt(1).toFixed(1)}"`);
    const bars = svg.match(/<line [^>]*stroke-width="1.5"\/>/g) ?? [];
    expect(bars).toEqual([
      `<line x1="${(xAt(50) - 3).toFixed(1)}" y1="${yAt(0.05).toFixed(1)}" x2="${(xAt(50) - 3).toFixed(1)}" y2="${yAt(0.15).toFixed(1)}" stroke="#1f77b4" stroke-width="1.5"/>`,
    ]);
  });

  it('draws tick marks and capped bars when asked', () => {
    const marked = fractionChartSvg({ ...chart, tickMarks: true, barCap: 3 });
    // The frame, then 11 tick marks on y and 3 on x.
    expect(marked.match(/stroke="#333333"\/>/g)).toHaveLength(1 + 11 + 3);
    expect(marked.match(/stroke-width="1.5"\/>/g)).toHaveLength(3);
  });

  it('lists the series, then the notes each dy below the one before', () => {
    // Legend: heading at 48 + 8, keys at 78 and 100; the notes 10 below the legend's end (122).
    expect(svg).toContain('<text x="546" y="60" font-weight="bold">Series</text>');
    expect(svg).toContain('<text x="584" y="82">high</text>');
    expect(svg).toContain('<text x="584" y="104">low</text>');
    expect(svg).toContain('<text x="546" y="132" fill="#555555">first</text>');
    expect(svg).toContain('<text x="546" y="147" fill="#666666" font-size="11">second</text>');
  });

  it('centres a single x value', () => {
    const one = fractionChartSvg({ ...chart, xTicks: [150] });
    expect(one).toContain(
      `<text x="${(64 + 466 / 2).toFixed(1)}" y="401" text-anchor="middle">150</text>`,
    );
  });

  it('is deterministic', () => {
    expect(fractionChartSvg(chart)).toBe(svg);
  });
});
