import { describe, expect, it } from 'vitest';
import {
  type BadInput,
  eachGivesOneClearLine,
  specErrorOf,
  withServices,
} from './parseNetworkFixtures.js';

// The top level of a network file: its field names, `model`, `backoff` and `classes`.

describe('parseNetwork: each bad input gives one clear line', () => {
  // Every case: the text, then the exact message. Line and column are 1-based.
  const cases: BadInput[] = [
    {
      name: 'an unknown field with no close match',
      text: `color: red\n${withServices('  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 } }')}`,
      message:
        'net.yaml:1:1: color: unknown field "color", expected one of name, description, model, backoff, classes, services, edge',
      path: 'color',
      line: 1,
    },
    {
      name: 'an unknown model',
      text: `model: mm2\n${withServices('  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 } }')}`,
      message: 'net.yaml:1:8: model: expected one of fluid, mm1m, mixed, got "mm2"',
      path: 'model',
      line: 1,
    },
    {
      name: 'a duplicate class name',
      text: 'classes:\n  - { name: high, retries: 5 }\n  - { name: high, retries: 1 }\nservices:\n  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 } }\n',
      message:
        'net.yaml:3:13: classes[1].name: duplicate class name "high", first declared at classes[0]',
      path: 'classes[1].name',
      line: 3,
    },
    {
      name: 'a backoff field of another kind',
      text: `backoff: { kind: constant, delayMs: 1, baseMs: 3 }\n${withServices('  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 } }')}`,
      message:
        'net.yaml:1:40: backoff.baseMs: unknown field "baseMs", expected one of kind, delayMs',
      path: 'backoff.baseMs',
      line: 1,
    },
    {
      name: 'an exponential backoff whose cap is below its base',
      text: `backoff: { kind: exponential, baseMs: 50, maxMs: 10 }\n${withServices('  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 } }')}`,
      message: 'net.yaml:1:50: backoff.maxMs: expected a number ≥ baseMs (50), got 10',
      path: 'backoff.maxMs',
      line: 1,
    },
    {
      name: 'a retry limit above 100',
      text: 'classes:\n  - { name: high, retries: 101 }\nservices:\n  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 } }\n',
      message:
        'net.yaml:2:28: classes[0].retries: expected an integer from 0 to 100 (retries after the first attempt), got 101',
      path: 'classes[0].retries',
      line: 2,
    },
    {
      name: 'no classes',
      text: 'classes: []\nservices:\n  - { name: a, capacity: 1, queue: 1 }\n',
      message: 'net.yaml:1:10: classes: expected a non-empty list of classes, got []',
      path: 'classes',
      line: 1,
    },
  ];

  eachGivesOneClearLine(cases);

  it('reports the first problem in document order and keeps them all', () => {
    const text = [
      'model: mm2', // line 1
      'classes:',
      '  - { name: high, retries: -1 }', // line 3
      'services:',
      '  - name: a',
      '    capacity: 0', // line 6
      '    queue: 1',
      '    arrivals: { high: 1 }',
    ].join('\n');
    const error = specErrorOf(text);
    expect(error.issues.map((i) => [i.line, i.path])).toStrictEqual([
      [1, 'model'],
      [3, 'classes[0].retries'],
      [6, 'services[0].capacity'],
    ]);
    expect(error.message).toBe(
      'net.yaml:1:8: model: expected one of fluid, mm1m, mixed, got "mm2"',
    );
  });
});
