// The marks every chart of the generated docs draws a series with.
import { describe, expect, it } from 'vitest';
import {
  errorBarSvg,
  legendEntrySvg,
  markerSvg,
  polylineSvg,
  strokeAttributes,
} from '../../src/report/seriesMarks.js';

const size = { radius: 4, outline: 2 };

describe('strokeAttributes', () => {
  it('writes colour and width, 2 by default, and the dash only when there is one', () => {
    expect(strokeAttributes({ color: '#111111' })).toBe('stroke="#111111" stroke-width="2"');
    expect(strokeAttributes({ color: '#111111', strokeWidth: 1.5, dash: '6 4' })).toBe(
      'stroke="#111111" stroke-width="1.5" stroke-dasharray="6 4"',
    );
    expect(strokeAttributes({ color: '#111111', dash: '' })).toBe(
      'stroke="#111111" stroke-width="2"',
    );
  });
});

describe('markerSvg', () => {
  it('draws a filled circle by default, centred on the point', () => {
    expect(markerSvg({ color: '#1f77b4' }, 10, 20.25, size)).toBe(
      '<circle cx="10.0" cy="20.3" r="4" fill="#1f77b4" stroke="#ffffff" stroke-width="1"/>',
    );
  });

  it('draws a hollow square of twice the radius, outlined at the given width', () => {
    expect(markerSvg({ color: '#ff7f0e', marker: 'square' }, 10, 20, size)).toBe(
      '<rect x="6.0" y="16.0" width="8" height="8" fill="#ffffff" stroke="#ff7f0e" stroke-width="2"/>',
    );
  });

  it('lets diamonds and triangles reach 1 px beyond the radius', () => {
    const small = { radius: 3.5, outline: 1.8 };
    expect(markerSvg({ color: '#000', marker: 'diamond' }, 10, 20, small)).toBe(
      '<path d="M10.0 15.5L14.5 20.0L10.0 24.5L5.5 20.0Z" fill="#000" stroke="#ffffff" stroke-width="1"/>',
    );
    expect(markerSvg({ color: '#000', marker: 'triangle' }, 10, 20, small)).toBe(
      '<path d="M10.0 15.5L14.5 23.5L5.5 23.5Z" fill="#ffffff" stroke="#000" stroke-width="1.8"/>',
    );
  });

  it('draws nothing for none', () => {
    expect(markerSvg({ color: '#000', marker: 'none' }, 10, 20, size)).toBe('');
  });
});

describe('polylineSvg', () => {
  it('joins the points in order, one decimal each, in the series stroke', () => {
    const style = { color: '#1f77b4', dash: '1 3', strokeWidth: 1 };
    expect(
      polylineSvg(style, [
        [1, 2],
        [3.04, 4.06],
      ]),
    ).toBe(
      '<polyline points="1.0,2.0 3.0,4.1" fill="none" stroke="#1f77b4" stroke-width="1" stroke-dasharray="1 3"/>',
    );
  });
});

describe('errorBarSvg', () => {
  it('draws one vertical bar, and caps at both ends when asked', () => {
    const style = { color: '#d62728' };
    expect(errorBarSvg(style, 10, 30, 20, 1.2)).toEqual([
      '<line x1="10.0" y1="30.0" x2="10.0" y2="20.0" stroke="#d62728" stroke-width="1.2"/>',
    ]);
    const capped = errorBarSvg(style, 10, 30, 20, 1.5, 3);
    expect(capped).toHaveLength(3);
    expect(capped[1]).toBe(
      '<line x1="7.0" y1="30.0" x2="13.0" y2="30.0" stroke="#d62728" stroke-width="1.5"/>',
    );
    expect(capped[2]).toBe(
      '<line x1="7.0" y1="20.0" x2="13.0" y2="20.0" stroke="#d62728" stroke-width="1.5"/>',
    );
  });
});

describe('legendEntrySvg', () => {
  it('draws a stretch of the line, the marker on its middle, and the escaped label after it', () => {
    expect(
      legendEntrySvg({ color: '#1f77b4', dash: '6 4' }, 'high & <low>', 100, 50, 30, size),
    ).toEqual([
      '<line x1="100" y1="50" x2="130" y2="50" stroke="#1f77b4" stroke-width="2" stroke-dasharray="6 4"/>',
      '<circle cx="115.0" cy="50.0" r="4" fill="#1f77b4" stroke="#ffffff" stroke-width="1"/>',
      '<text x="138" y="54">high &amp; &lt;low&gt;</text>',
    ]);
  });
});
