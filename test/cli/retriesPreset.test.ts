import { describe, expect, it } from 'vitest';
import { parseRetries } from '../../src/cli/input.js';
import { builtinExample } from '../../src/config/examples.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { toNetworkModel } from '../../src/config/toNetworkModel.js';
import { analyzeNetwork } from '../../src/model/network/analyzeNetwork.js';

// `--retries istio-default` is Istio's implicit policy (2 retries for every request at every
// hop): the same network as every class written out with 2, whatever the file says per service.

const hotel = () => {
  const { text, fileName } = builtinExample('hotel-calls');
  return parseNetwork(text, fileName);
};

const endToEnd = (retries: Record<string, number>) => {
  const report = analyzeNetwork(toNetworkModel(hotel(), { retries }));
  return Object.fromEntries(
    Object.entries(report.endToEnd).map(([name, c]) => [name, c.rejection]),
  );
};

describe('--retries presets and *', () => {
  it('reads istio-default as 2 for every class, and * as every class not named', () => {
    expect(parseRetries('istio-default')).toEqual({ '*': 2 });
    expect(parseRetries('*=3,high=5')).toEqual({ '*': 3, high: 5 });
  });

  it('gives the network of every class at 2 for istio-default, and keeps named classes over *', () => {
    expect(endToEnd(parseRetries('istio-default'))).toEqual(endToEnd({ high: 2, low: 2 }));
    expect(endToEnd({ '*': 2, high: 5 })).toEqual(endToEnd({ high: 5, low: 2 }));
    const two = toNetworkModel(
      parseNetwork(
        [
          'classes: [{ name: a, retries: 4 }, { name: b, retries: 1 }]',
          'services:',
          '  - { name: s, capacity: 10, queue: 5, arrivals: { a: 1, b: 1 }, retries: { b: 0 } }',
        ].join('\n'),
        'x.yaml',
      ),
      { retries: { '*': 2 } },
    );
    // A mesh default applies at every hop, over a service's own override.
    expect(two.services[0]?.retryLimits).toEqual([2, 2]);
  });

  it('still refuses a class the file does not have', () => {
    expect(() => toNetworkModel(hotel(), { retries: { gold: 1 } })).toThrow(/names class "gold"/);
  });

  it('shows the storm Istio’s default causes on hotelReservation, beside DiffTry (5, 1)', () => {
    const istio = endToEnd(parseRetries('istio-default'));
    const difftry = endToEnd({ high: 5, low: 1 });
    expect(istio.high).toBeCloseTo(0.5233, 4);
    expect(istio.low).toBeCloseTo(0.5233, 4);
    expect(difftry.high).toBeCloseTo(0.2027, 4);
    expect(difftry.low).toBeCloseTo(0.5875, 4);
  });
});
