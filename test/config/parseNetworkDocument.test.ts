import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isSpecError,
  loadNetworkFile,
  parseNetwork,
  type SpecError,
} from '../../src/config/index.js';
import {
  type BadInput,
  eachGivesOneClearLine,
  specErrorOf,
  withServices,
} from './parseNetworkFixtures.js';

// The network file as a whole: YAML or JSON, one document holding a mapping; read from disk.

describe('parseNetwork: each bad input gives one clear line', () => {
  // Every case: the text, then the exact message. Line and column are 1-based.
  const cases: BadInput[] = [
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

  eachGivesOneClearLine(cases);

  it('codes a syntax error apart from an invalid network', () => {
    expect(specErrorOf('a: [1, 2').code).toBe('DIFFTRY_SPEC_SYNTAX');
    expect(specErrorOf('42').code).toBe('DIFFTRY_SPEC_INVALID');
    expect(specErrorOf('a: [1, 2').expected).toBe('valid YAML or JSON');
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
