import { describe, expect, it } from 'vitest';
import { isUsageError, UsageError } from '../../src/cli/UsageError.js';
import { generateNetwork } from '../../src/config/generators/generateNetwork.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { isSpecError, type SpecError } from '../../src/config/SpecError.js';
import { DifftryError, isDifftryError } from '../../src/core/DifftryError.js';
import { InvalidArgumentError } from '../../src/core/InvalidArgumentError.js';
import { InvalidArgumentTypeError } from '../../src/core/InvalidArgumentTypeError.js';
import { retryQueueFigures } from '../../src/model/exact/retryQueueChain.js';
import { checkNetworkModel } from '../../src/model/network/checkNetworkModel.js';
import { birthDeathFluctuation } from '../../src/model/numeric/birthDeathFluctuation.js';
import { retryPolicy } from '../../src/policy/retry/RetryPolicy.js';
import { AttemptTimeoutError } from '../../src/runtime/errors.js';
import { Simulation } from '../../src/sim/engine/Simulation.js';

describe('DifftryError: one base with stable codes', () => {
  it('is the base of the timeout, the spec and the usage errors, each with its code', () => {
    let spec: unknown;
    try {
      parseNetwork('classes: 3', 'net.yaml');
    } catch (error) {
      spec = error;
    }
    const errors = [
      new AttemptTimeoutError(5),
      spec,
      new UsageError('--seed: expected an integer'),
    ];
    expect(errors.map((e) => isDifftryError(e) && e instanceof DifftryError)).toEqual([
      true,
      true,
      true,
    ]);
    expect(errors.map((e) => (e as DifftryError).code)).toEqual([
      'DIFFTRY_TIMEOUT',
      'DIFFTRY_SPEC_INVALID',
      'DIFFTRY_USAGE',
    ]);
    expect(errors.map((e) => (e as Error).name)).toEqual([
      'AttemptTimeoutError',
      'SpecError',
      'UsageError',
    ]);
    expect(isSpecError(spec)).toBe(true);
    expect((spec as SpecError).message).toMatch(/^net\.yaml:1:\d+: classes: /);
    expect(isUsageError(errors[2])).toBe(true);
    expect(isUsageError(spec)).toBe(false);
  });

  it('is recognised by its brand, not its class (a second copy of the module)', () => {
    const copy = Object.assign(new Error('from another copy'), {
      code: 'DIFFTRY_USAGE',
      [Symbol.for('difftry.error')]: true,
    });
    expect(isDifftryError(copy)).toBe(true);
    expect(isUsageError(copy)).toBe(true);
    expect(isDifftryError(Object.assign(new Error('x'), { code: 'DIFFTRY_USAGE' }))).toBe(false);
    expect(isDifftryError(null)).toBe(false);
  });

  it('keeps the cause', () => {
    const cause = new Error('disk');
    expect(new UsageError('cannot write', { cause }).cause).toBe(cause);
  });

  it('gives a bad argument the code DIFFTRY_INVALID_ARGUMENT, still a RangeError', () => {
    const thrown: unknown[] = [];
    for (const run of [
      () => generateNetwork('dgg', { services: 0 }),
      () => new Simulation({ progressEveryEvents: 0 }),
      () => new Simulation().schedule(-1, 0, 0),
      () => birthDeathFluctuation([], [], []),
      () =>
        retryQueueFigures(
          {
            capacity: 1,
            queue: 2,
            classes: [{ arrivalRate: 0.5, retryLimit: 1, meanTimeout: Infinity, meanBackoff: 0 }],
          },
          4,
        ),
      () =>
        checkNetworkModel({
          classes: [{ name: 'c', retryLimit: -1 }],
          services: [],
        }),
    ]) {
      try {
        run();
      } catch (error) {
        thrown.push(error);
      }
    }
    expect(thrown).toHaveLength(6);
    for (const error of thrown) {
      expect(error).toBeInstanceOf(RangeError);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toBeInstanceOf(DifftryError);
      expect(isDifftryError(error) && error.code).toBe('DIFFTRY_INVALID_ARGUMENT');
      expect(isSpecError(error)).toBe(false);
      expect(error instanceof AttemptTimeoutError).toBe(false);
    }
    expect(new RangeError('x') instanceof DifftryError).toBe(false);
  });

  it('gives an argument of the wrong kind the same code, still a TypeError', () => {
    let thrown: unknown;
    try {
      retryPolicy(undefined as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown).toBeInstanceOf(InvalidArgumentTypeError);
    expect(thrown).toBeInstanceOf(DifftryError);
    expect(isDifftryError(thrown) && thrown.code).toBe('DIFFTRY_INVALID_ARGUMENT');
  });
});
