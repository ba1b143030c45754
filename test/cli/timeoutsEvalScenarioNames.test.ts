import { describe, expect, it } from 'vitest';
import { parseScenarios } from '../../src/cli/timeoutsEvalCommand.js';
import {
  TIMEOUT_SCENARIO_LABELS,
  TIMEOUT_SCENARIO_NAMES,
} from '../../src/experiments/timeouts/scenarios.js';

describe('timeouts eval --scenario', () => {
  it('takes every scenario by the label the tables print, in any case', () => {
    for (const name of TIMEOUT_SCENARIO_NAMES) {
      const label = TIMEOUT_SCENARIO_LABELS[name];
      expect(parseScenarios(label)).toEqual([name]);
      expect(parseScenarios(label.toUpperCase())).toEqual([name]);
      expect(parseScenarios(name)).toEqual([name]);
    }
    expect(parseScenarios('Spikes, Random walk,slow_increase')).toEqual([
      'spikes',
      'random-walk',
      'slow-increase',
    ]);
    expect(parseScenarios('ALL')).toEqual([...TIMEOUT_SCENARIO_NAMES]);
  });

  it('still refuses a name that is no scenario, naming the choices', () => {
    expect(() => parseScenarios('Spyke')).toThrow(
      `--scenario: expected all or one of ${TIMEOUT_SCENARIO_NAMES.join(', ')}, got "Spyke"`,
    );
  });
});
