import { describe, expect, it } from 'vitest';
import { classColorVariable } from '../../web/src/charts/classColor.js';
import { RHO_SCALE_MAX, rhoColor } from '../../web/src/network/rhoColor.js';

describe('the ρ colour scale', () => {
  const color = rhoColor({ good: '#00ff00', warn: '#ffff00', bad: '#ff0000' });

  it('runs from good at 0 through warn at 1 to bad at RHO_SCALE_MAX and beyond', () => {
    expect(color(0)).toBe('rgb(0, 255, 0)');
    expect(color(0.5)).toBe('rgb(128, 255, 0)');
    expect(color(1)).toBe('rgb(255, 255, 0)');
    expect(color(RHO_SCALE_MAX)).toBe('rgb(255, 0, 0)');
    expect(color(40)).toBe('rgb(255, 0, 0)');
  });

  it('shows a figure that is not a number as overload, never black', () => {
    expect(color(Number.NaN)).toBe('rgb(255, 0, 0)');
  });
});

describe('class colours', () => {
  it('give the highest class --high, the lowest --low, the ones between the others', () => {
    expect([0, 1].map((p) => classColorVariable(p, 2))).toEqual(['--high', '--low']);
    expect([0, 1, 2, 3].map((p) => classColorVariable(p, 4))).toEqual([
      '--high',
      '--class-2',
      '--class-3',
      '--low',
    ]);
    expect(classColorVariable(0, 1)).toBe('--high');
  });
});
