import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromExactJson, toExactJson } from '../../src/experiments/shard/exactJson.js';
import { rangeText, shardRange } from '../../src/experiments/shard/shard.js';
import { type ShardEntry, wholeRun } from '../../src/experiments/shard/shardSet.js';

describe('exact JSON', () => {
  it('gives back every number it was given, NaN, ±Infinity and −0 included', () => {
    fc.assert(
      fc.property(
        fc
          .jsonValue()
          .chain((json) => fc.record({ json: fc.constant(json), numbers: fc.array(fc.double()) })),
        (value) => {
          const back = fromExactJson(toExactJson(value)) as typeof value;
          expect(back.json).toStrictEqual(value.json);
          expect(back.numbers.length).toBe(value.numbers.length);
          for (const [i, x] of back.numbers.entries()) {
            expect(Object.is(x, value.numbers[i])).toBe(true);
          }
        },
      ),
    );
  });

  it('writes the four values plain JSON loses as tagged objects', () => {
    const text = toExactJson([
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      -0,
      1.5,
    ]);
    expect(text).toBe(
      '[{"$number":"NaN"},{"$number":"Infinity"},{"$number":"-Infinity"},{"$number":"-0"},1.5]',
    );
    expect(JSON.stringify([Number.NaN, -0])).toBe('[null,0]'); // what it guards against
    expect(fromExactJson('{"$number":"bogus"}')).toStrictEqual({ $number: 'bogus' });
  });
});

describe('wholeRun', () => {
  const entry = (file: string, index: number, count: number, seed = 1): ShardEntry => ({
    file,
    shard: { index, count },
    run: { version: '1', seed },
  });

  it('orders every shard of one run', () => {
    const result = wholeRun([entry('c', 2, 3), entry('a', 0, 3), entry('b', 1, 3)]);
    expect('ordered' in result && result.ordered.map((e) => e.file)).toEqual(['a', 'b', 'c']);
  });

  it('names the first problem: another run, another count, a shard twice, shards missing', () => {
    const problem = (entries: ShardEntry[]) => {
      const result = wholeRun(entries);
      return 'problem' in result ? result.problem : undefined;
    };
    expect(problem([entry('a', 0, 2), entry('b', 1, 2, 7)])).toBe(
      'cannot merge shards of different runs: seed 7 in b, 1 in a',
    );
    expect(problem([entry('a', 0, 2), entry('b', 1, 3)])).toBe(
      'cannot merge shards of different runs: 3 shards in b, 2 in a',
    );
    expect(problem([entry('a', 0, 2), entry('b', 0, 2)])).toBe(
      'shard 0 of 2 is given twice: a and b',
    );
    expect(problem([entry('a', 1, 4)])).toBe('shards 0, 2, 3 of 4 missing: the run is not whole');
    expect(problem([])).toBe('no shard results');
    expect(
      problem([
        { file: 'a', shard: { index: 0, count: 2 }, run: { seed: 1 } },
        { file: 'b', shard: { index: 1, count: 2 }, run: { seed: 1, network: 'x' } },
      ]),
    ).toBe('cannot merge shards of different runs: network "x" in b, absent in a');
  });
});

describe('rangeText', () => {
  it('says which items a shard ran, numbered from 1', () => {
    expect(rangeText(shardRange(5, { index: 1, count: 3 }), 5, 'point')).toBe('points 2–3 of 5');
    expect(rangeText(shardRange(57, { index: 50, count: 57 }), 57, 'case')).toBe('case 51 of 57');
    expect(rangeText(shardRange(2, { index: 0, count: 3 }), 2, 'point')).toBe('no points of 2');
  });
});
