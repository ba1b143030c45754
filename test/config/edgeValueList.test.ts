import { describe, expect, it } from 'vitest';
import { parseEdgeValueList } from '../../src/config/parseSidecarConfig.js';
import { isSpecError } from '../../src/config/SpecError.js';

const at = { file: 'a.yaml', path: 'inbound.edge.rules[1].valueEnv', variable: 'PREMIUM_KEYS' };

describe('parseEdgeValueList', () => {
  it('splits on commas and trims each value', () => {
    expect(parseEdgeValueList('k1', at)).toStrictEqual(['k1']);
    expect(parseEdgeValueList(' k1 ,k2,  k3', at)).toStrictEqual(['k1', 'k2', 'k3']);
  });

  it.each([
    ['k1,k2,', 3, 3],
    [' ', 1, 1],
    ['k1, ,k2', 2, 3],
    [',k1', 1, 2],
    ['k1,,', 2, 3],
    ['\t', 1, 1],
  ])('refuses %j: blank entry at %i of %i, naming no value', (text, position, count) => {
    let thrown: unknown;
    try {
      parseEdgeValueList(text, at);
    } catch (error) {
      thrown = error;
    }
    expect(isSpecError(thrown)).toBe(true);
    const message = (thrown as Error).message;
    expect(message).toBe(
      `a.yaml: inbound.edge.rules[1].valueEnv: environment variable PREMIUM_KEYS has a blank entry at position ${position} of ${count}, expected comma-separated non-blank values`,
    );
    expect(message).not.toContain('k1');
    expect(message).not.toContain('\n');
  });
});
