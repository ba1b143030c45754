import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isSpecError,
  loadNetworkFile,
  loadScheduleFile,
  parseNetwork,
  parseSchedule,
  toNetworkModel,
} from '../../src/config/index.js';

/** Two services, two classes; only `frontend` has external arrivals (of both classes). */
const network = toNetworkModel(
  parseNetwork(
    [
      'classes: [{ name: high, retries: 5 }, { name: low, retries: 1 }]',
      'services:',
      '  - { name: frontend, capacity: 143, queue: 50, arrivals: { high: 50, low: 250 }, routes: [{ to: search, p: 1 }] }',
      '  - { name: search, capacity: 200, queue: 50 }',
    ].join('\n'),
    'net.yaml',
  ),
);

/** The one-line message of the error `parseSchedule(text)` throws. */
function messageOf(text: string): string {
  try {
    parseSchedule(text, 'sched.yaml', network);
  } catch (error) {
    if (!isSpecError(error)) throw error;
    expect(error.message).not.toContain('\n');
    return error.message;
  }
  throw new Error(`parsed without error: ${text}`);
}

describe('parseSchedule', () => {
  it('parses steps and ramps, YAML or JSON, as the simulator takes them', () => {
    const yaml = [
      'description: a drop and a ramp',
      'changes:',
      '  - { at: 100, until: 110, service: search, capacity: 0.3 }',
      '  - { at: 0, until: 300, service: frontend, class: low, arrivals: { from: 1.0, to: 2.0 } }',
      '  - { at: 400, arrivals: 0.5 }',
    ].join('\n');
    const parsed = parseSchedule(yaml, 'sched.yaml', network);
    expect(parsed).toStrictEqual({
      description: 'a drop and a ramp',
      changes: [
        { at: 100, until: 110, service: 'search', capacity: 0.3 },
        { at: 0, until: 300, service: 'frontend', class: 'low', arrivals: { from: 1, to: 2 } },
        { at: 400, arrivals: 0.5 },
      ],
    });
    const json = JSON.stringify({ changes: parsed.changes });
    expect(parseSchedule(json, 'sched.json', network).changes).toStrictEqual(parsed.changes);
  });

  it.each([
    [
      'an unknown service',
      'changes:\n  - { at: 100, until: 110, service: serch, capacity: 0.3 }',
      'sched.yaml:2:37: changes[0].service: expected a service of the network (frontend, search), got "serch"',
    ],
    [
      'an unknown class',
      'changes:\n  - { at: 0, class: medium, arrivals: 2 }',
      'sched.yaml:2:21: changes[0].class: expected a class of the network (high, low), got "medium"',
    ],
    [
      'arrivals where there are none',
      'changes:\n  - { at: 0, service: search, arrivals: 2 }',
      'sched.yaml:2:41: changes[0].arrivals: search has no external arrivals to scale',
    ],
    [
      'a misspelt field, before the missing one it explains',
      'changes:\n  - { at: 0, service: search, capacty: 2 }',
      'sched.yaml:2:31: changes[0].capacty: unknown field "capacty" (did you mean "capacity"?)',
    ],
    [
      'neither capacity nor arrivals',
      'changes:\n  - { at: 0, service: search }',
      'sched.yaml:2:5: changes[0]: missing field: expected capacity or arrivals (a multiplier, or a ramp { from, to })',
    ],
    [
      'both capacity and arrivals',
      'changes:\n  - { at: 0, service: frontend, capacity: 2, arrivals: 2 }',
      'sched.yaml:2:46: changes[0].arrivals: give capacity or arrivals, not both',
    ],
    [
      'a ramp without an end',
      'changes:\n  - { at: 0, service: search, capacity: { from: 1, to: 0.5 } }',
      'sched.yaml:2:5: changes[0]: missing field: expected until (the end of the ramp, s)',
    ],
    [
      'an end before the start',
      'changes:\n  - { at: 10, until: 5, service: search, capacity: 0.5 }',
      'sched.yaml:2:22: changes[0].until: expected a time after at (10 s), got 5',
    ],
    [
      'a negative time',
      'changes:\n  - { at: -1, service: search, capacity: 0.5 }',
      'sched.yaml:2:11: changes[0].at: expected a number ≥ 0 (s), got -1',
    ],
    [
      'a negative multiplier',
      'changes:\n  - { at: 0, service: search, capacity: -2 }',
      'sched.yaml:2:41: changes[0].capacity: expected a multiplier ≥ 0, or a ramp { from, to } of multipliers ≥ 0, got -2',
    ],
    [
      'a multiplier that is not a number',
      'changes:\n  - { at: 0, service: search, capacity: half }',
      'sched.yaml:2:41: changes[0].capacity: expected a multiplier ≥ 0, or a ramp { from, to }, got "half"',
    ],
    [
      'a class with a capacity',
      'changes:\n  - { at: 0, service: search, class: low, capacity: 2 }',
      'sched.yaml:2:31: changes[0].class: class goes with arrivals only: a capacity is per service',
    ],
    [
      'a capacity without its service',
      'changes:\n  - { at: 0, capacity: 2 }',
      'sched.yaml:2:5: changes[0]: missing field: expected service (whose capacity changes)',
    ],
    [
      'a capacity of 0 for good',
      'changes:\n  - { at: 50, service: search, capacity: 0 }',
      'sched.yaml:2:42: changes[0].capacity: a capacity of 0 with no until would stop the service for good; give until',
    ],
    [
      'two changes of one capacity that overlap',
      'changes:\n  - { at: 100, until: 110, service: search, capacity: 0.3 }\n  - { at: 105, service: search, capacity: 0.5 }',
      'sched.yaml:3:11: changes[1].at: overlaps changes[0] on the capacity of search: changes of one rate must not overlap in time',
    ],
    [
      'two changes of one arrival rate that overlap',
      'changes:\n  - { at: 0, until: 100, arrivals: 2 }\n  - { at: 50, until: 60, service: frontend, class: high, arrivals: 3 }',
      'sched.yaml:3:11: changes[1].at: overlaps changes[0] on the arrivals of high at frontend: changes of one rate must not overlap in time',
    ],
    [
      'an unknown top-level field',
      'chnges: []',
      'sched.yaml:1:1: chnges: unknown field "chnges" (did you mean "changes"?)',
    ],
    [
      'an empty file',
      '',
      'sched.yaml:1:1: expected a schedule: a mapping with changes, got an empty file',
    ],
    ['not YAML', 'changes: [', 'sched.yaml:1:11: not valid YAML or JSON'],
  ])('names the place of %s', (_case, text, expected) => {
    expect(messageOf(text)).toContain(expected);
  });

  it('lets changes of different rates overlap, and one rate change again after the last ends', () => {
    const text = [
      'changes:',
      '  - { at: 100, until: 110, service: search, capacity: 0.3 }',
      '  - { at: 105, until: 200, service: frontend, capacity: 0.5 }',
      '  - { at: 110, service: search, capacity: 0.9 }',
      '  - { at: 0, until: 100, class: high, arrivals: 2 }',
      '  - { at: 50, until: 100, class: low, arrivals: 2 }',
    ].join('\n');
    expect(parseSchedule(text, 'sched.yaml', network).changes).toHaveLength(5);
  });

  it('reads a file, and says when it cannot', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'difftry-schedule-'));
    const path = join(directory, 'drop.yaml');
    writeFileSync(path, 'changes: [{ at: 1, until: 2, service: search, capacity: 0.5 }]\n');
    expect((await loadScheduleFile(path, network)).changes).toHaveLength(1);
    await expect(loadScheduleFile(join(directory, 'none.yaml'), network)).rejects.toThrow(
      /none\.yaml: cannot read the file: no such file/,
    );
  });

  it('parses the example schedules for the example network', async () => {
    const example = (file: string) => new URL(`../../examples/${file}`, import.meta.url).pathname;
    const metastable = toNetworkModel(await loadNetworkFile(example('metastable.yaml')));
    const drop = await loadScheduleFile(example('capacity-drop.yaml'), metastable);
    expect(drop.changes).toStrictEqual([{ at: 100, until: 110, service: 'api', capacity: 0.3 }]);
    const ramp = await loadScheduleFile(example('load-ramp.yaml'), metastable);
    expect(ramp.changes).toHaveLength(2);
  });
});
