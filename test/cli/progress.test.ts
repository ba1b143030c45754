import { describe, expect, it, vi } from 'vitest';
import { progressOnStderr, remainingTimeText } from '../../src/cli/progress.js';

describe('progressOnStderr', () => {
  it('stays silent for work shorter than the delay, and never writes to stdout', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let clock = 0;
    const progress = progressOnStderr('quick', { now: () => clock });
    for (let i = 1; i <= 10; i++) {
      clock += 50; // 0.5 s in all
      progress.update(i / 10);
    }
    progress.stop();
    expect(err).not.toHaveBeenCalled();
    expect(out).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it('appears on stderr once the work has run past the delay', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let clock = 0;
    const progress = progressOnStderr('long', { now: () => clock, delayMs: 1000 });
    progress.update(0.1);
    clock = 1500;
    progress.update(0.5);
    progress.stop();
    expect(err).toHaveBeenCalled();
    expect(err.mock.calls.map((c) => String(c[0])).join('')).toContain('long');
    expect(out).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });
});

describe('progressOnStderr with a format of its own', () => {
  it('shows the values given to update instead of a bar, on stderr only', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let clock = 0;
    const progress = progressOnStderr('analyze:', {
      now: () => clock,
      delayMs: 2000,
      format: '{phase}, {sweeps} sweeps',
    });
    progress.update(0, { phase: 'healthy', sweeps: 250 });
    clock = 2500;
    progress.update(0, { phase: 'storm', sweeps: 500 });
    progress.stop();
    const written = err.mock.calls.map((c) => String(c[0])).join('');
    expect(written).toContain('analyze: storm, 500 sweeps');
    expect(written).not.toContain('[');
    expect(out).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });
});

describe('remainingTimeText', () => {
  it.each([
    [30_000, 0.25, '1m 30s'],
    [10_000, 0.5, '10s'],
    [60_000, 0.01, '1h 39m'],
    [3_600_000, 0.01, '4d 3h'],
    [1_000, 0.0009, 'estimating'],
    [999, 0.9, 'estimating'],
    [5_000, 0, 'estimating'],
    [5_000, Number.NaN, 'estimating'],
    [5_000, 1, '0s'],
  ])('after %d ms at %d done: %s', (elapsedMs, fraction, text) => {
    expect(remainingTimeText(elapsedMs, fraction)).toBe(text);
  });

  it('is what the progress line shows, from the reporter’s own clock', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let clock = 0;
    const progress = progressOnStderr('long', { now: () => clock, delayMs: 0 });
    progress.update(0);
    clock = 20_000;
    progress.update(0.2);
    // Off a terminal it prints from update() every 3 s on its own clock: work that holds the
    // event loop (no timer ever fires) still shows its progress.
    const written = err.mock.calls.map((c) => String(c[0])).join('');
    progress.stop();
    vi.restoreAllMocks();
    // 20 s for a fifth: 80 s to go.
    expect(written).toContain('20% | ETA 1m 20s');
  });
});
