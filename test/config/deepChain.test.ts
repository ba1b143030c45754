import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../src/config/index.js';

/** A chain s0 → s1 → … → s(n−1) as a network file. */
function chainFile(length: number, cycle = false): string {
  const lines = ['classes:', '  - { name: c, retries: 1 }', 'services:'];
  for (let i = 0; i < length; i++) {
    const next = i < length - 1 ? `s${i + 1}` : cycle ? 's0' : undefined;
    const arrivals = i === 0 ? ', arrivals: { c: 10 }' : '';
    const calls = next === undefined ? '' : `, calls: [{ to: ${next} }]`;
    lines.push(`  - { name: s${i}, capacity: 100, queue: 10${arrivals}${calls} }`);
  }
  return `${lines.join('\n')}\n`;
}

describe('the network rules on deep call graphs', () => {
  it('a 5,000-deep chain of calls is checked without overflowing the stack', () => {
    const spec = parseNetwork(chainFile(5000), 'chain.yaml');
    expect(spec.services).toHaveLength(5000);
  });

  it('a cycle closing a 5,000-deep chain is still found and named', () => {
    expect(() => parseNetwork(chainFile(5000, true), 'chain.yaml')).toThrow(
      /services\[4999\]\.calls\[0\]\.to: calls form a cycle s0 → s1 → .* → s4999 → s0/,
    );
  });
});
