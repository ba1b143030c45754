import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { SpecError } from '../../src/config/SpecError.js';
import { meshPlan } from '../../src/deploy/meshPlan.js';
import { sidecarsFromNetwork } from '../../src/deploy/sidecarsFromNetwork.js';

// A network file's `edge`: how a deployment classes external requests, for `difftry mesh`.

const network = (edge: string) =>
  [
    'classes: [{ name: gold, retries: 3 }, { name: bronze, retries: 1 }]',
    'services:',
    '  - { name: web, capacity: 10, queue: 8, arrivals: { gold: 1, bronze: 4 }, calls: [{ to: db }] }',
    '  - { name: db, capacity: 10, queue: 4 }',
    edge,
  ].join('\n');

/** The issues a file raises, as `path: message`. */
function problems(text: string): string[] {
  try {
    parseNetwork(text, 'net.yaml');
    return [];
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    return error.issues.map((issue) => issue.message);
  }
}

describe("a network file's edge", () => {
  const withEdge = network(
    [
      'edge:',
      '  rules:',
      '    - { path: /premium, class: gold }',
      '    - { header: x-api-key, valueEnv: GOLD_KEYS, class: gold }',
      '  default: bronze',
    ].join('\n'),
  );

  it('gives every edge sidecar its rules and default, and the mesh plan reads them', () => {
    const [web, db] = sidecarsFromNetwork(parseNetwork(withEdge, 'net.yaml'));
    expect(web?.inbound?.edge).toEqual({
      rules: [
        { path: '/premium', class: 'gold' },
        { header: 'x-api-key', valueEnv: 'GOLD_KEYS', class: 'gold' },
      ],
      default: 'bronze',
    });
    expect(db?.inbound?.edge).toBeUndefined();
    const [edge] = meshPlan(parseNetwork(withEdge, 'net.yaml')).services;
    expect(edge?.edgeRules).toEqual([
      { className: 'gold', path: '/premium' },
      { className: 'gold', header: 'x-api-key', valueEnv: 'GOLD_KEYS' },
    ]);
    expect(edge?.edgeDefault).toBe('bronze');
  });

  it('yields to rules given in code', () => {
    const [web] = sidecarsFromNetwork(parseNetwork(withEdge, 'net.yaml'), {
      edgeRules: [{ method: 'DELETE', class: 'bronze' }],
    });
    expect(web?.inbound?.edge?.rules).toEqual([{ method: 'DELETE', class: 'bronze' }]);
  });

  it('is optional: without it the edge has no rules and the default class', () => {
    const [web] = sidecarsFromNetwork(parseNetwork(network(''), 'net.yaml'));
    expect(web?.inbound?.edge).toEqual({ rules: [] });
  });

  it('refuses undeclared classes and rules the sidecar would refuse, where they are written', () => {
    expect(
      problems(
        network(
          [
            'edge:',
            '  rules:',
            '    - { path: /x, class: platinum }',
            '    - { class: gold }',
            '    - { value: k, class: gold }',
            '    - { header: x-k, value: a, valueEnv: B, class: gold }',
            '  default: silver',
          ].join('\n'),
        ),
      ),
    ).toEqual([
      'net.yaml:7:26: edge.rules[0].class: expected a declared class (gold, bronze), got "platinum"',
      'net.yaml:8:7: edge.rules[1]: an edge rule needs path, method or header (one rule matching everything is edge.default)',
      'net.yaml:9:7: edge.rules[2]: an edge rule needs path, method or header (one rule matching everything is edge.default)',
      "net.yaml:9:9: edge.rules[2].value: value compares a header's value, expected header beside it",
      'net.yaml:10:32: edge.rules[3].valueEnv: an edge rule has value or valueEnv, not both',
      'net.yaml:11:12: edge.default: expected a declared class (gold, bronze), got "silver"',
    ]);
    expect(problems(network('edge: { rules: [{ path: premium, class: gold }] }'))).toEqual([
      expect.stringMatching(/edge\.rules\[0\]\.path: .*a path starting with \//),
    ]);
    expect(problems(network('edge: { rulez: [] }'))[0]).toMatch(/net\.yaml:5:\d+: edge/);
  });
});
