import cliProgress from 'cli-progress';

/**
 * Reports the progress of long work as a fraction in [0, 1], and optionally the values a custom
 * line shows (see {@link progressOnStderr}'s `format`).
 */
export type ProgressReporter = {
  update(fraction: number, values?: Readonly<Record<string, string | number>>): void;
  stop(): void;
};

/** Steps of the bar: fine enough that a long run moves, and its estimate with it. */
const BAR_STEPS = 1_000_000;
/** Off a terminal (CI logs, pipes), a progress line this often. */
const NOT_TTY_EVERY_MS = 3000;
/** Before this much work, or this much time, an estimate would be noise. */
const ESTIMATE_AFTER = { fraction: 0.001, elapsedMs: 1000 };

/**
 * The time a piece of work still needs, from the time it has taken and the fraction done, as the
 * progress line shows it: `42s`, `3m 05s`, `2h 13m`, `3d 4h`; `estimating` before enough is known
 * (less than 0.1 % done or under a second gone), `0s` when done. Linear in the fraction: work
 * that reports its fraction evenly (virtual time simulated, cases checked) gets an honest figure.
 * @example
 * ```ts
 * remainingTimeText(30_000, 0.25); // '1m 30s'
 * remainingTimeText(200, 0.5); // 'estimating'
 * ```
 */
export function remainingTimeText(elapsedMs: number, fraction: number): string {
  if (fraction >= 1) return '0s';
  if (!(fraction >= ESTIMATE_AFTER.fraction) || !(elapsedMs >= ESTIMATE_AFTER.elapsedMs)) {
    return 'estimating';
  }
  const seconds = Math.round((elapsedMs * (1 - fraction)) / fraction / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/**
 * A progress bar on stderr that appears only once the work has run for `delayMs` (default one
 * second), so quick runs print nothing extra. On a terminal it redraws in place; elsewhere
 * (CI logs, pipes) it prints a line every few seconds. stdout is never touched, so `--json`
 * output stays clean. The estimate of the time left is {@link remainingTimeText}'s, from the time
 * since the reporter was made. `format` replaces the bar with a line of its own (cli-progress
 * placeholders, filled from the values given to `update`), for work whose fraction is unknown.
 */
export function progressOnStderr(
  label: string,
  options: { delayMs?: number; now?: () => number; format?: string } = {},
): ProgressReporter {
  const now = options.now ?? Date.now;
  const started = now();
  const delayMs = options.delayMs ?? 1000;
  let bar: cliProgress.SingleBar | undefined;
  let last = 0;
  // Off a terminal cli-progress prints on a timer, which work holding the event loop (a
  // simulation) never lets run: print from update() instead, on the reporter's own clock.
  const onTerminal = process.stderr.isTTY === true;
  let printedAt = Number.NEGATIVE_INFINITY;
  let shown: Readonly<Record<string, string | number>> = {};
  return {
    update(fraction, values) {
      if (values !== undefined) shown = values;
      last = Math.min(Math.max(fraction, 0), 1);
      if (!bar && now() - started >= delayMs) {
        bar = new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format:
              options.format === undefined
                ? `${label} [{bar}] {percentage}% | ETA {remaining}`
                : `${label} ${options.format}`,
            noTTYOutput: true,
            notTTYSchedule: NOT_TTY_EVERY_MS,
            hideCursor: true,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(BAR_STEPS, Math.round(last * BAR_STEPS), { ...shown, remaining: 'estimating' });
      }
      if (bar === undefined) return;
      const at = now();
      bar.update(Math.round(last * BAR_STEPS), {
        ...shown,
        remaining: remainingTimeText(at - started, last),
      });
      if (!onTerminal && at - printedAt >= NOT_TTY_EVERY_MS) {
        printedAt = at;
        bar.render();
      }
    },
    stop() {
      if (bar) {
        bar.update(BAR_STEPS, { ...shown, remaining: '0s' });
        bar.stop();
      }
    },
  };
}
