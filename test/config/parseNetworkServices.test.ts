import { describe, expect, it } from 'vitest';
import {
  type BadInput,
  eachGivesOneClearLine,
  specErrorOf,
  withServices,
} from './parseNetworkFixtures.js';

// The fields of each entry of `services`: capacity, queue, arrivals, retries, service time.

describe('parseNetwork: each bad input gives one clear line', () => {
  // Every case: the text, then the exact message. Line and column are 1-based.
  const cases: BadInput[] = [
    {
      name: 'an undeclared class in arrivals',
      text: withServices(
        '  - name: a\n    capacity: 10\n    queue: 5\n    arrivals: { high: 1, medium: 2 }',
      ),
      message:
        'net.yaml:8:26: services[0].arrivals.medium: expected a declared class (high, low), got "medium"',
      path: 'services[0].arrivals.medium',
      line: 8,
    },
    {
      name: 'a negative capacity',
      text: withServices('  - name: a\n    capacity: -3\n    queue: 5\n    arrivals: { high: 1 }'),
      message:
        'net.yaml:6:15: services[0].capacity: expected a positive number (requests/s), got -3',
      path: 'services[0].capacity',
      line: 6,
    },
    {
      name: 'a zero capacity',
      text: withServices('  - name: a\n    capacity: 0\n    queue: 5\n    arrivals: { high: 1 }'),
      message:
        'net.yaml:6:15: services[0].capacity: expected a positive number (requests/s), got 0',
      path: 'services[0].capacity',
      line: 6,
    },
    {
      name: 'a missing capacity',
      text: withServices('  - name: a\n    queue: 5\n    arrivals: { high: 1 }'),
      message:
        'net.yaml:5:5: services[0].capacity: missing field: expected capacity (a positive number, requests/s)',
      path: 'services[0].capacity',
      line: 5,
    },
    {
      name: 'NaN',
      text: withServices(
        '  - name: a\n    capacity: .nan\n    queue: 5\n    arrivals: { high: 1 }',
      ),
      message: 'net.yaml:6:15: services[0].capacity: expected a finite number, got NaN',
      path: 'services[0].capacity',
      line: 6,
    },
    {
      name: 'infinity',
      text: withServices(
        '  - name: a\n    capacity: 1\n    queue: 5\n    arrivals: { high: .inf }',
      ),
      message: 'net.yaml:8:23: services[0].arrivals.high: expected a finite number, got Infinity',
      path: 'services[0].arrivals.high',
      line: 8,
    },
    {
      name: 'a misspelt field',
      text: withServices('  - name: a\n    capcity: 10\n    queue: 5\n    arrivals: { high: 1 }'),
      message:
        'net.yaml:6:5: services[0].capcity: unknown field "capcity" (did you mean "capacity"?)',
      path: 'services[0].capcity',
      line: 6,
    },
    {
      name: 'a duplicate service name',
      text: withServices(
        '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 } }\n  - { name: a, capacity: 2, queue: 1 }',
      ),
      message:
        'net.yaml:6:13: services[1].name: duplicate service name "a", first declared at services[0]',
      path: 'services[1].name',
      line: 6,
    },
    {
      name: 'a per-service retry limit for an undeclared class',
      text: withServices(
        '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, retries: { mid: 1 } }',
      ),
      message:
        'net.yaml:5:73: services[0].retries.mid: expected a declared class (high, low), got "mid"',
      path: 'services[0].retries.mid',
      line: 5,
    },
    {
      name: 'no positive arrival rate anywhere',
      text: withServices('  - { name: a, capacity: 1, queue: 1, arrivals: { high: 0 } }'),
      message:
        'net.yaml:4:1: services: no service has a positive arrival rate, expected arrivals > 0 for some class somewhere',
      path: 'services',
      line: 4,
    },
    {
      name: 'an unknown service-time distribution',
      text: withServices(
        '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, serviceTime: { dist: gamma } }',
      ),
      message:
        'net.yaml:5:83: services[0].serviceTime.dist: expected one of exponential, deterministic, hyperexponential, lognormal, got "gamma"',
      path: 'services[0].serviceTime.dist',
      line: 5,
    },
    {
      name: 'a hyperexponential with scv ≤ 1',
      text: withServices(
        '  - name: a\n    capacity: 1\n    queue: 1\n    arrivals: { high: 1 }\n    serviceTime: { dist: hyperexponential, scv: 0.5 }',
      ),
      message:
        'net.yaml:9:49: services[0].serviceTime.scv: expected a number > 1 (squared coefficient of variation), got 0.5',
      path: 'services[0].serviceTime.scv',
      line: 9,
    },
    {
      name: 'a string where a number belongs',
      text: withServices('  - { name: a, capacity: "143", queue: 1, arrivals: { high: 1 } }'),
      message:
        'net.yaml:5:26: services[0].capacity: expected a positive number (requests/s), got "143"',
      path: 'services[0].capacity',
      line: 5,
    },
    {
      name: 'an empty value',
      text: withServices('  - name: a\n    capacity:\n    queue: 1\n    arrivals: { high: 1 }'),
      message:
        'net.yaml:6:14: services[0].capacity: expected a positive number (requests/s), got null',
      path: 'services[0].capacity',
      line: 6,
    },
  ];

  eachGivesOneClearLine(cases);

  it('says what was expected apart from the message', () => {
    const error = specErrorOf(
      withServices('  - { name: a, capacity: -3, queue: 1, arrivals: { high: 1 } }'),
    );
    expect(error.expected).toBe('a positive number (requests/s)');
    expect(error.column).toBe(26);
    expect(error.issues[0]?.problem).toBe('expected a positive number (requests/s), got -3');
  });

  it('puts a misspelt field before the missing field it explains', () => {
    const error = specErrorOf(withServices('  - name: a\n    capcity: 10\n    queue: 5'));
    expect(error.issues.map((i) => i.path)).toStrictEqual([
      'services[0].capcity',
      'services[0].capacity',
    ]);
  });

  it('reports one problem per unknown field, each at its key', () => {
    const error = specErrorOf(
      withServices('  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, foo: 1, bar: 2 }'),
    );
    expect(error.issues.map((i) => [i.path, i.column])).toStrictEqual([
      ['services[0].foo', 62],
      ['services[0].bar', 70],
    ]);
  });

  it('cuts long values', () => {
    const error = specErrorOf(
      withServices(
        '  - { name: a, capacity: { a: 1, b: [1, 2, 3], c: "a long string here" }, queue: 1 }',
      ),
    );
    expect(error.message).toBe(
      'net.yaml:5:26: services[0].capacity: expected a positive number (requests/s), got {"a":1,"b":[1,2,3],"c":"a long string h…',
    );
  });

  it('quotes odd keys in paths', () => {
    const error = specErrorOf(
      withServices('  - { name: a, capacity: 1, queue: 1, arrivals: { "my class": 1 } }'),
    );
    expect(error.message).toBe(
      'net.yaml:5:51: services[0].arrivals["my class"]: expected a declared class (high, low), got "my class"',
    );
  });

  it('checks cross-field rules only once the types are right', () => {
    // A wrong type stops zod before the rules run; a wrong range does not.
    const typeError = specErrorOf(withServices('  - { name: a, capacity: "1", queue: 1 }'));
    expect(typeError.issues.map((i) => i.path)).toStrictEqual(['services[0].capacity']);
    const rangeError = specErrorOf(withServices('  - { name: a, capacity: -1, queue: 1 }'));
    expect(rangeError.issues.map((i) => i.path)).toStrictEqual([
      'services',
      'services[0].capacity',
    ]);
  });
});
