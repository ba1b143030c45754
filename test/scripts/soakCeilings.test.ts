// The soak's resource verdict (src/experiments/soak/soakCeilings.ts): ceilings at every sample,
// return to baseline after settling, samples in every window.
import { describe, expect, it } from 'vitest';
import {
  judgeProcess,
  median,
  type ResourceSample,
  type SoakCeilings,
  type SoakPhases,
} from '../../src/experiments/soak/soakCeilings.js';

const MIB = 1024 * 1024;
const phases: SoakPhases = {
  baselineFromMs: 10_000,
  loadFromMs: 15_000,
  loadUntilMs: 75_000,
  finalFromMs: 85_000,
};
const ceilings: SoakCeilings = {
  rssBytes: 200 * MIB,
  fds: 100,
  settleRssBytes: 20 * MIB,
  settleFds: 4,
};

/** One sample a second from 0 to 90 s: baseline level, load level, final level by phase. */
function run(
  level: (atMs: number) => { rssMiB: number; fds: number },
  untilMs = 90_000,
): ResourceSample[] {
  const samples: ResourceSample[] = [];
  for (let atMs = 0; atMs < untilMs; atMs += 1_000) {
    const { rssMiB, fds } = level(atMs);
    samples.push({ atMs, rssBytes: rssMiB * MIB, fds });
  }
  return samples;
}

const healthy = (atMs: number) =>
  atMs < phases.loadFromMs
    ? { rssMiB: 100, fds: 20 }
    : atMs < phases.loadUntilMs
      ? { rssMiB: 150, fds: 80 }
      : { rssMiB: 110, fds: 21 };

describe('median', () => {
  it('takes the middle value, or the mean of the middle two', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('judgeProcess', () => {
  it('passes a process that stays under its ceilings and comes back', () => {
    const verdict = judgeProcess(run(healthy), phases, ceilings);
    expect(verdict.violations).toEqual([]);
    expect(verdict.baseline).toEqual({ rssBytes: 100 * MIB, fds: 20 });
    expect(verdict.final).toEqual({ rssBytes: 110 * MIB, fds: 21 });
    expect(verdict.peak).toMatchObject({ rssBytes: 150 * MIB, fds: 80 });
    // Samples before the baseline window (start-up) are not judged.
    expect(verdict.samples).toBe(80);
  });

  it('ignores start-up above the ceilings, before the baseline', () => {
    const startUp = (atMs: number) =>
      atMs < phases.baselineFromMs ? { rssMiB: 500, fds: 500 } : healthy(atMs);
    expect(judgeProcess(run(startUp), phases, ceilings).violations).toEqual([]);
  });

  it('fails one sample over a ceiling, saying when and how often', () => {
    const spike = (atMs: number) =>
      atMs === 40_000
        ? { rssMiB: 201, fds: 80 }
        : atMs === 50_000
          ? { rssMiB: 150, fds: 101 }
          : healthy(atMs);
    const { violations, peak } = judgeProcess(run(spike), phases, ceilings);
    expect(violations).toEqual([
      'RSS 201.0 MiB at 40 s over the ceiling 200.0 MiB (1 of 80 samples)',
      '101 descriptors at 50 s over the ceiling 100 (1 of 80 samples)',
    ]);
    expect(peak).toMatchObject({ rssAtMs: 40_000, fdsAtMs: 50_000 });
  });

  it('fails a process that does not come back to its baseline', () => {
    const leaky = (atMs: number) =>
      atMs >= phases.loadUntilMs ? { rssMiB: 121, fds: 25 } : healthy(atMs);
    expect(judgeProcess(run(leaky), phases, ceilings).violations).toEqual([
      'RSS did not come back: 121.0 MiB after settling, baseline 100.0 MiB, tolerance +20.0 MiB',
      'descriptors did not come back: 25 after settling, baseline 20, tolerance +4',
    ]);
  });

  it('judges by medians, so one late sample does not decide', () => {
    const blip = (atMs: number) => (atMs === 88_000 ? { rssMiB: 190, fds: 60 } : healthy(atMs));
    expect(judgeProcess(run(blip), phases, ceilings).violations).toEqual([]);
  });

  it('fails a process that exited, or left a window without samples', () => {
    const gone = judgeProcess(run(healthy, 40_000), phases, ceilings, 40_000);
    expect(gone.violations).toEqual([
      'the process exited at 40 s',
      'no sample in the final window',
    ]);
    expect(gone.final.rssBytes).toBeNaN();
    expect(judgeProcess([], phases, ceilings).violations).toEqual([
      'no sample in the baseline window',
      'no sample under load',
      'no sample in the final window',
    ]);
  });
});
