import { describe, expect, it } from 'vitest';
import { px, svgDocument } from '../../src/report/svgDocument.js';

describe('svgDocument', () => {
  it('frames the body on white, one element a line, dropping empty ones', () => {
    const svg = svgDocument('720', '440.0', ['<a/>', '', '<b/>']);
    const lines = svg.split('\n');
    expect(lines[0]).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" width="720" height="440.0" viewBox="0 0 720 440.0" font-family="Helvetica, Arial, sans-serif" font-size="12">',
    );
    expect(lines.slice(1)).toEqual([
      '<rect width="720" height="440.0" fill="#ffffff"/>',
      '<a/>',
      '<b/>',
      '</svg>',
      '',
    ]);
  });

  it('writes coordinates with one decimal', () => {
    expect(px(12)).toBe('12.0');
    expect(px(12.26)).toBe('12.3');
    expect(px(-0.04)).toBe('-0.0');
  });
});
