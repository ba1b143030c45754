import { describe, expect, it, vi } from 'vitest';
import { progressOnStderr } from '../../src/cli/progress.js';

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
