// The Figure 5 sweep's definition (src/experiments/figure5/figure5Sweep.ts), as the paper states it.
import { describe, expect, it } from 'vitest';
import { builtinExample, parseNetwork, toNetworkModel } from '../../../src/config/index.js';
import {
  FIGURE5_BOTTLENECK,
  FIGURE5_GAMMA_HIGH,
  FIGURE5_GAMMA_LOWS,
  FIGURE5_HEAVIEST_GAMMA_LOW,
  figure5Limits,
  modelAtFigure5Point,
  specAtFigure5Point,
} from '../../../src/experiments/figure5/figure5Sweep.js';

const hotel = () => {
  const { fileName, text } = builtinExample('hotel');
  return parseNetwork(text, fileName);
};

describe('figure5Sweep', () => {
  it('sweeps γ_low from 50 to 250 in steps of 25 against γ_high = 50 at the frontend', () => {
    expect(FIGURE5_GAMMA_LOWS).toEqual([50, 75, 100, 125, 150, 175, 200, 225, 250]);
    expect(FIGURE5_GAMMA_HIGH).toBe(50);
    expect(FIGURE5_HEAVIEST_GAMMA_LOW).toBe(FIGURE5_GAMMA_LOWS[FIGURE5_GAMMA_LOWS.length - 1]);
    expect(FIGURE5_BOTTLENECK).toBe('frontend');
  });

  it('compares DiffTry k = (5, 1) with uniform k = (5, 5)', () => {
    expect(figure5Limits()).toEqual([
      { key: '5/1', label: 'DiffTry k = (5, 1)', retries: { high: 5, low: 1 } },
      { key: '5/5', label: 'uniform k = (5, 5)', retries: { high: 5, low: 5 } },
    ]);
    expect(figure5Limits('gold', 'bronze')[0]?.retries).toEqual({ gold: 5, bronze: 1 });
  });

  it('sets the bottleneck’s arrivals and leaves every other service alone', () => {
    const spec = hotel();
    const at = specAtFigure5Point(spec, 125);
    expect(at.services.find((s) => s.name === 'frontend')?.arrivals).toEqual({
      high: 50,
      low: 125,
    });
    expect(at.services.filter((s) => s.name !== 'frontend')).toEqual(
      spec.services.filter((s) => s.name !== 'frontend'),
    );
    const model = modelAtFigure5Point(toNetworkModel(spec), 75);
    expect(model.services.find((s) => s.name === 'frontend')?.arrivals).toEqual([50, 75]);
  });
});
