import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isSpecError,
  loadNetworkFile,
  parseNetwork,
  type SpecError,
} from '../../src/spec/index.js';

/** Two classes and the given `services:` block, so that service lines start at line 5. */
const withServices = (services: string): string =>
  [
    'classes:',
    '  - { name: high, retries: 5 }',
    '  - { name: low, retries: 1 }',
    'services:',
    services,
  ]
    .join('\n')
    .concat('\n');

/** The SpecError that parsing `text` throws; fails the test if it parses. */
function specErrorOf(text: string, fileName = 'net.yaml'): SpecError {
  try {
    parseNetwork(text, fileName);
  } catch (error) {
    if (isSpecError(error)) return error;
    throw error;
  }
  throw new Error(`expected a SpecError, but this parsed:\n${text}`);
}

describe('parseNetwork: valid files', () => {
  it('applies every default', () => {
    const network = parseNetwork(
      withServices(
        [
          '  - name: a',
          '    capacity: 10',
          '    queue: 5',
          '    arrivals: { high: 1 }',
          '    calls: [{ to: b }]',
          '  - { name: b, capacity: 20, queue: 3 }',
        ].join('\n'),
      ),
      'net.yaml',
    );
    expect(network).toStrictEqual({
      model: 'mixed',
      classes: [
        { name: 'high', retries: 5, weight: 1 },
        { name: 'low', retries: 1, weight: 1 },
      ],
      services: [
        {
          name: 'a',
          capacity: 10,
          queue: 5,
          arrivals: { high: 1 },
          serviceTime: { dist: 'exponential' },
          residual: false,
          calls: [{ to: 'b', n: 1, mode: 'sequential' }],
        },
        {
          name: 'b',
          capacity: 20,
          queue: 3,
          arrivals: {},
          serviceTime: { dist: 'exponential' },
          residual: false,
        },
      ],
    });
  });

  it('keeps every optional field that is given', () => {
    const network = parseNetwork(
      [
        'name: n',
        'description: d',
        'model: fluid',
        'backoff: { kind: random, meanMs: 100 }',
        'classes:',
        '  - name: high',
        '    retries: 5',
        '    backoff: { kind: exponential, baseMs: 50, factor: 1.5, maxMs: 800, jitter: decorrelated }',
        '    timeoutMs: 250',
        '    weight: 10',
        'services:',
        '  - name: a',
        '    capacity: 10',
        '    queue: 5',
        '    arrivals: { high: 1 }',
        '    retries: { high: 0 }',
        '    model: mm1m',
        '    serviceTime: { dist: hyperexponential, scv: 4 }',
        '    residual: true',
        '    routes: [{ to: a, p: 0.5, class: high }]',
      ].join('\n'),
      'net.yaml',
    );
    expect(network.name).toBe('n');
    expect(network.description).toBe('d');
    expect(network.model).toBe('fluid');
    expect(network.backoff).toStrictEqual({ kind: 'random', meanMs: 100 });
    expect(network.classes[0]).toStrictEqual({
      name: 'high',
      retries: 5,
      backoff: { kind: 'exponential', baseMs: 50, factor: 1.5, maxMs: 800, jitter: 'decorrelated' },
      timeoutMs: 250,
      weight: 10,
    });
    expect(network.services[0]).toMatchObject({
      retries: { high: 0 },
      model: 'mm1m',
      serviceTime: { dist: 'hyperexponential', scv: 4 },
      residual: true,
      routes: [{ to: 'a', p: 0.5, class: 'high' }],
    });
  });

  it('accepts routes with cycles and probabilities that sum to 1 up to rounding', () => {
    const network = parseNetwork(
      withServices(
        [
          '  - name: a',
          '    capacity: 10',
          '    queue: 5',
          '    arrivals: { low: 1 }',
          '    routes: [{ to: b, p: 0.1 }, { to: b, p: 0.2 }, { to: a, p: 0.7 }]',
          // b lets half of what it serves leave: a row of 1 at a alone is no closed set.
          '  - { name: b, capacity: 20, queue: 3, routes: [{ to: a, p: 0.5 }] }',
        ].join('\n'),
      ),
      'net.yaml',
    );
    expect(network.services).toHaveLength(2);
  });
});

describe('parseNetwork: each bad input gives one clear line', () => {
  // Every case: the text, then the exact message. Line and column are 1-based.
  const cases: { name: string; text: string; message: string; path: string; line?: number }[] = [
    {
      name: 'not YAML',
      text: 'a: [1, 2',
      message:
        'net.yaml:1:9: not valid YAML or JSON: Flow sequence in block collection must be sufficiently indented and end with a ]',
      path: '',
      line: 1,
    },
    {
      name: 'a scalar instead of a mapping',
      text: '42\n',
      message: 'net.yaml:1:1: expected a network: a mapping with classes and services, got 42',
      path: '',
      line: 1,
    },
    {
      name: 'an empty file',
      text: '# nothing here\n',
      message:
        'net.yaml:1:1: expected a network: a mapping with classes and services, got an empty file',
      path: '',
      line: 1,
    },
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
      name: 'an unknown field with no close match',
      text: `color: red\n${withServices('  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 } }')}`,
      message:
        'net.yaml:1:1: color: unknown field "color", expected one of name, description, model, backoff, classes, services, edge',
      path: 'color',
      line: 1,
    },
    {
      name: 'route probabilities over 1',
      text: withServices(
        [
          '  - name: a',
          '    capacity: 10',
          '    queue: 5',
          '    arrivals: { high: 1 }',
          '    routes:',
          '      - { to: b, p: 0.6 }',
          '      - { to: b, p: 0.6, class: low }',
          '  - { name: b, capacity: 1, queue: 1 }',
        ].join('\n'),
      ),
      message:
        'net.yaml:9:5: services[0].routes: route probabilities for class low sum to 1.2, expected at most 1',
      path: 'services[0].routes',
      line: 9,
    },
    {
      name: 'a class routed into services it can never leave (ρ(F) = 1)',
      text: withServices(
        [
          '  - name: a',
          '    capacity: 10',
          '    queue: 5',
          '    arrivals: { high: 1 }',
          '    routes:',
          '      - { to: b, p: 1 }',
          '  - name: b',
          '    capacity: 10',
          '    queue: 5',
          '    routes:',
          '      - { to: a, p: 0.5 }',
          '      - { to: a, p: 0.5, class: low }',
        ].join('\n'),
      ),
      message:
        'net.yaml:9:5: services[0].routes: class low: requests routed into a, b can never leave (their route probabilities sum to 1 around a cycle), so ρ(F) = 1; the standard equations need ρ(F) < 1',
      path: 'services[0].routes',
      line: 9,
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
      name: 'calls with a cycle',
      text: withServices(
        [
          '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, calls: [{ to: b }] }',
          '  - { name: b, capacity: 1, queue: 1, calls: [{ to: c }] }',
          '  - { name: c, capacity: 1, queue: 1, calls: [{ to: a }] }',
        ].join('\n'),
      ),
      message:
        'net.yaml:7:53: services[2].calls[0].to: calls form a cycle a → b → c → a, expected calls without cycles (a DAG)',
      path: 'services[2].calls[0].to',
      line: 7,
    },
    {
      name: 'a service that calls itself',
      text: withServices(
        '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, calls: [{ to: a }] }',
      ),
      message:
        'net.yaml:5:76: services[0].calls[0].to: calls form a cycle a → a, expected calls without cycles (a DAG)',
      path: 'services[0].calls[0].to',
      line: 5,
    },
    {
      name: 'routes in one service and calls in another',
      text: withServices(
        [
          '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, routes: [{ to: b, p: 1 }] }',
          '  - { name: b, capacity: 1, queue: 1, calls: [{ to: c }] }',
          '  - { name: c, capacity: 1, queue: 1 }',
        ].join('\n'),
      ),
      message:
        'net.yaml:6:39: services[1].calls: a network uses routes or calls, not both: services[0] (a) has routes, this service has calls',
      path: 'services[1].calls',
      line: 6,
    },
    {
      name: 'routes and calls in one service',
      text: withServices(
        '  - name: a\n    capacity: 1\n    queue: 1\n    arrivals: { high: 1 }\n    routes: []\n    calls: []',
      ),
      message: 'net.yaml:10:5: services[0].calls: a service has routes or calls, not both',
      path: 'services[0].calls',
      line: 10,
    },
    {
      name: 'an unknown model',
      text: `model: mm2\n${withServices('  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 } }')}`,
      message: 'net.yaml:1:8: model: expected one of fluid, mm1m, mixed, got "mm2"',
      path: 'model',
      line: 1,
    },
    {
      name: 'a route to an undeclared service',
      text: withServices(
        '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, routes: [{ to: serch, p: 0.5 }] }',
      ),
      message:
        'net.yaml:5:77: services[0].routes[0].to: expected a declared service (a), got "serch"',
      path: 'services[0].routes[0].to',
      line: 5,
    },
    {
      name: 'a call for an undeclared class',
      text: withServices(
        '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, calls: [{ to: b, class: mid }] }\n  - { name: b, capacity: 1, queue: 1 }',
      ),
      message:
        'net.yaml:5:86: services[0].calls[0].class: expected a declared class (high, low), got "mid"',
      path: 'services[0].calls[0].class',
      line: 5,
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
    {
      name: 'no classes',
      text: 'classes: []\nservices:\n  - { name: a, capacity: 1, queue: 1 }\n',
      message: 'net.yaml:1:10: classes: expected a non-empty list of classes, got []',
      path: 'classes',
      line: 1,
    },
    {
      name: 'a duplicate key (YAML itself forbids it)',
      text: 'classes: []\nclasses: []\n',
      message: 'net.yaml:2:1: not valid YAML or JSON: Map keys must be unique',
      path: '',
      line: 2,
    },
    {
      name: 'two documents in one file',
      text: `${withServices('  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 } }')}---\nmodel: fluid\n`,
      message:
        'net.yaml:6:1: not valid YAML or JSON: more than one document (a network file holds one)',
      path: '',
      line: 6,
    },
    {
      name: 'an alias without its anchor',
      text: `${withServices('  - { name: a, capacity: *cap, queue: 1, arrivals: { high: 1 } }')}`,
      message:
        'net.yaml:5:26: not valid YAML or JSON: Unresolved alias (the anchor must be set before the alias): cap',
      path: '',
      line: 5,
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const error = specErrorOf(c.text);
      expect(error.message, `input:\n${c.text}`).toBe(c.message);
      expect(error.message).not.toContain('\n');
      expect(error.path).toBe(c.path);
      expect(error.line).toBe(c.line);
      expect(error.file).toBe('net.yaml');
      expect(error.issues[0]?.message).toBe(error.message);
    });
  }

  it('codes a syntax error apart from an invalid network', () => {
    expect(specErrorOf('a: [1, 2').code).toBe('DIFFTRY_SPEC_SYNTAX');
    expect(specErrorOf('42').code).toBe('DIFFTRY_SPEC_INVALID');
    expect(specErrorOf('a: [1, 2').expected).toBe('valid YAML or JSON');
  });

  it('says what was expected apart from the message', () => {
    const error = specErrorOf(
      withServices('  - { name: a, capacity: -3, queue: 1, arrivals: { high: 1 } }'),
    );
    expect(error.expected).toBe('a positive number (requests/s)');
    expect(error.column).toBe(26);
    expect(error.issues[0]?.problem).toBe('expected a positive number (requests/s), got -3');
  });

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

  it('reports the route sum once the probabilities themselves are valid', () => {
    const error = specErrorOf(
      withServices(
        '  - { name: a, capacity: 1, queue: 1, arrivals: { high: 1 }, routes: [{ to: a, p: 1.5 }] }',
      ),
    );
    expect(error.issues.map((i) => i.problem)).toStrictEqual([
      'expected a probability in [0, 1], got 1.5',
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

describe('parseNetwork: JSON', () => {
  it('reads JSON, with line numbers in errors', () => {
    const json = JSON.stringify(
      {
        classes: [{ name: 'high', retries: 5 }],
        services: [{ name: 'a', capacity: 10, queue: 1, arrivals: { high: 1 } }],
      },
      null,
      2,
    );
    expect(parseNetwork(json, 'net.json').services[0]?.capacity).toBe(10);

    const bad = json.replace('"capacity": 10', '"capacity": -1');
    const error = specErrorOf(bad, 'net.json');
    expect(error.message).toBe(
      'net.json:11:19: services[0].capacity: expected a positive number (requests/s), got -1',
    );
  });

  it('reads JSON indented with tabs', () => {
    const json =
      '{\n\t"classes": [{"name": "high", "retries": 5}],\n\t"services": [\n\t\t{"name": "a", "capacity": 10, "queue": 1, "arrivals": {"high": 1}}\n\t]\n}\n';
    expect(parseNetwork(json, 'net.json').classes[0]?.name).toBe('high');
  });

  it('places a JSON syntax error', () => {
    const error = specErrorOf('{\n  "classes" []\n}\n', 'net.json');
    expect(error.code).toBe('DIFFTRY_SPEC_SYNTAX');
    expect(error.line).toBe(2);
    expect(error.message).toMatch(/^net\.json:2:\d+: not valid YAML or JSON: /);
  });
});

describe('loadNetworkFile', () => {
  it('reads and parses a file, naming it in errors', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'difftry-spec-'));
    try {
      const file = join(dir, 'net.yaml');
      await writeFile(
        file,
        withServices('  - { name: a, capacity: 1, queue: 1, arrivals: { low: 2 } }'),
      );
      expect((await loadNetworkFile(file)).services[0]?.arrivals).toStrictEqual({ low: 2 });

      await writeFile(
        file,
        withServices('  - { name: a, capacity: -1, queue: 1, arrivals: { low: 2 } }'),
      );
      await expect(loadNetworkFile(file)).rejects.toThrow(
        `${file}:5:26: services[0].capacity: expected a positive number (requests/s), got -1`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('turns a missing file into an unreadable-file SpecError', async () => {
    const missing = join(tmpdir(), 'difftry-no-such-dir', 'net.yaml');
    const error: unknown = await loadNetworkFile(missing).catch((e: unknown) => e);
    expect(isSpecError(error)).toBe(true);
    const specError = error as SpecError;
    expect(specError.code).toBe('DIFFTRY_SPEC_UNREADABLE');
    expect(specError.message).toBe(`${missing}: cannot read the file: no such file`);
    expect(specError.line).toBeUndefined();
    expect((specError.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('turns a directory into an unreadable-file SpecError', async () => {
    const error: unknown = await loadNetworkFile(tmpdir()).catch((e: unknown) => e);
    expect(isSpecError(error) && error.code).toBe('DIFFTRY_SPEC_UNREADABLE');
  });
});
