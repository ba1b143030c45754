import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TalliedCounter } from '../../src/mesh/TalliedCounter.js';

// A TalliedCounter must read exactly as a prom-client Counter incremented one by one: the same
// exposition text after the same counts, whatever reads it, and reset/remove clear what was
// counted before them.

function pair() {
  const plainRegistry = new Registry();
  const talliedRegistry = new Registry();
  const config = { name: 'calls_total', help: 'Calls.', labelNames: ['upstream', 'class'] };
  const plain = new Counter({ ...config, registers: [plainRegistry] });
  const tallied = new TalliedCounter({ ...config, registers: [talliedRegistry] });
  return { plain, tallied, plainRegistry, talliedRegistry };
}

describe('TalliedCounter', () => {
  it('exposes what one inc per count would, from its first read on', async () => {
    const { plain, tallied, plainRegistry, talliedRegistry } = pair();
    const labels = [
      { upstream: 'search', class: 'high' },
      { upstream: 'search', class: 'low' },
    ];
    const tallies = labels.map((set) => tallied.tally(set));
    for (const set of labels) plain.inc(set, 0);
    // Declared series show 0 before any count.
    expect(await talliedRegistry.metrics()).toBe(await plainRegistry.metrics());
    const counts = [
      [3, 0],
      [1, 7],
      [0, 2],
    ] as const;
    for (const [high, low] of counts) {
      for (let i = 0; i < high; i++) {
        (tallies[0] as { count: number }).count++;
        plain.inc(labels[0] as (typeof labels)[0]);
      }
      for (let i = 0; i < low; i++) {
        (tallies[1] as { count: number }).count++;
        plain.inc(labels[1] as (typeof labels)[1]);
      }
      expect(await talliedRegistry.metrics()).toBe(await plainRegistry.metrics());
      expect(await talliedRegistry.getSingleMetricAsString('calls_total')).toBe(
        await plainRegistry.getSingleMetricAsString('calls_total'),
      );
      expect((await tallied.get()).values).toStrictEqual((await plain.get()).values);
    }
  });

  it('forgets the counts made before a reset or a remove', async () => {
    const { tallied } = pair();
    const high = { upstream: 'search', class: 'high' };
    const tally = tallied.tally(high);
    tally.count += 5;
    tallied.reset();
    expect((await tallied.get()).values).toStrictEqual([]);
    tally.count += 2;
    expect((await tallied.get()).values.map((value) => value.value)).toStrictEqual([2]);
    tally.count += 4;
    tallied.remove(high);
    expect((await tallied.get()).values).toStrictEqual([]);
  });

  it('checks the labels of a tally when it is made', () => {
    const { tallied } = pair();
    expect(() => tallied.tally({ upstream: 'search', shard: '1' } as never)).toThrow(/shard/);
  });
});
