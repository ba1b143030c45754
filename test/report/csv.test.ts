// CSV cells and lines of the generated docs (src/report/csv.ts).
import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../src/report/csv.js';

describe('csv', () => {
  it('writes CSV cells as RFC 4180 wants them', () => {
    expect(csvCell(0.1)).toBe('0.1');
    expect(csvCell(Number.NaN)).toBe('n/a');
    expect(csvCell('budget-grpc')).toBe('budget-grpc');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvLine(['long', 'difftry', 50, Number.NaN, 0.25])).toBe('long,difftry,50,n/a,0.25');
  });
});
