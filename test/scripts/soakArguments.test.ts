// The soak's command line (src/experiments/soak/soakArguments.ts).
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SOAK_MINUTES,
  isSoakUsageError,
  parseSoakArguments,
} from '../../src/experiments/soak/soakArguments.js';

describe('parseSoakArguments', () => {
  it('defaults to the issue’s 10 minutes, no file', () => {
    expect(parseSoakArguments([])).toEqual({ minutes: DEFAULT_SOAK_MINUTES, help: false });
    expect(DEFAULT_SOAK_MINUTES).toBe(10);
  });

  it('takes fractional minutes and an output file, in either spelling', () => {
    expect(parseSoakArguments(['--minutes', '0.5', '--out', '/tmp/s.md'])).toEqual({
      minutes: 0.5,
      out: '/tmp/s.md',
      help: false,
    });
    expect(parseSoakArguments(['--minutes=.25', '--out=r.md'])).toEqual({
      minutes: 0.25,
      out: 'r.md',
      help: false,
    });
    expect(parseSoakArguments(['--help']).help).toBe(true);
  });

  it.each([
    [['--minutes'], '--minutes: expected a value'],
    [['--minutes', '--out', 'x'], '--minutes: expected a value'],
    [['--minutes', '0'], '--minutes: expected a number > 0'],
    [['--minutes', '-1'], '--minutes: expected a number > 0'],
    [['--minutes', 'ten'], 'got "ten"'],
    [['--minutes', ''], 'got ""'],
    [['--minutes', '1e9'], '≤ 1440'],
    [['--minutes', 'Infinity'], 'got "Infinity"'],
    [['--minutes', '1', '--minutes', '2'], '--minutes: given twice'],
    [['--out='], '--out: expected a file name'],
    [['--out', 'a', '--out', 'b'], '--out: given twice'],
    [['--help=1'], '--help: takes no value'],
    [['--seconds', '5'], 'unknown argument "--seconds"'],
    [['5'], 'unknown argument "5"'],
  ])('%j is refused with one line: %s', (argv, message) => {
    let thrown: unknown;
    try {
      parseSoakArguments(argv);
    } catch (error) {
      thrown = error;
    }
    expect(isSoakUsageError(thrown)).toBe(true);
    expect((thrown as Error).message).toContain(message);
    expect((thrown as Error).message).not.toContain('\n');
  });
});
