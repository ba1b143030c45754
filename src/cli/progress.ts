import cliProgress from 'cli-progress';

/** Reports the progress of long work as a fraction in [0, 1]. */
export type ProgressReporter = {
  update(fraction: number): void;
  stop(): void;
};

/**
 * A progress bar on stderr that appears only once the work has run for `delayMs` (default one
 * second), so quick runs print nothing extra. On a terminal it redraws in place; elsewhere
 * (CI logs, pipes) it prints a line every few seconds. stdout is never touched, so `--json`
 * output stays clean.
 */
export function progressOnStderr(
  label: string,
  options: { delayMs?: number; now?: () => number } = {},
): ProgressReporter {
  const now = options.now ?? Date.now;
  const started = now();
  const delayMs = options.delayMs ?? 1000;
  let bar: cliProgress.SingleBar | undefined;
  let last = 0;
  return {
    update(fraction) {
      last = Math.min(Math.max(fraction, 0), 1);
      if (!bar && now() - started >= delayMs) {
        bar = new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: `${label} [{bar}] {percentage}% | ETA {eta_formatted}`,
            noTTYOutput: true,
            notTTYSchedule: 3000,
            hideCursor: true,
            etaBuffer: 50,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(1000, Math.round(last * 1000));
      }
      bar?.update(Math.round(last * 1000));
    },
    stop() {
      if (bar) {
        bar.update(1000);
        bar.stop();
      }
    },
  };
}
