import type { ReplicatedWindow } from '../sim/network/replicateWindows.js';
import { type Column, fixed, formatTable } from './table.js';

/** The figures of a window row, in CSV order; each is followed by its `Ci95` in the CSV. */
const FIGURES = [
  'offered',
  'completed',
  'rejected',
  'rejection',
  'attempts',
  'attemptsPerRequest',
  's',
  'timeouts',
  'rho',
  'inSystem',
] as const;

/**
 * The columns of `simulate --window S --csv FILE`, in order: one row per window and class
 * (`scope` `class`) then per window and service (`scope` `service`). `start`, `end`: the window,
 * virtual seconds since the run began; `name`: the class or service; `multiplier`: the
 * schedule's mean multiplier over the window (a class's arrivals, a service's capacity; 1 where
 * nothing changes); then each figure of the window and its 95 % half-width (empty with one
 * replication): `offered` arrivals/s, `completed` and `rejected` per second (requests end to
 * end, or calls at a service), `rejection` = rejected / (completed + rejected), `attempts` per
 * second, `attemptsPerRequest`, `s` (attempts rejected at admission), `timeouts` per second, and
 * for services only `rho` (attempts/s over the window's capacity) and `inSystem` (at the
 * window's end).
 */
export const WINDOW_CSV_COLUMNS = [
  'start',
  'end',
  'scope',
  'name',
  'multiplier',
  ...FIGURES.flatMap((figure) => [figure, `${figure}Ci95`]),
] as const;

type Figures = Readonly<Record<string, number>>;

/** The CSV text of a run's windows (header first, one line per window and class or service). */
export function windowCsv(windows: readonly ReplicatedWindow[]): string {
  const cell = (value: number | undefined) =>
    value === undefined || Number.isNaN(value) ? '' : String(value);
  const row = (window: ReplicatedWindow, scope: string, name: string, figures: Figures) =>
    [
      window.start,
      window.end,
      scope,
      csvText(name),
      figures.multiplier,
      ...FIGURES.flatMap((f) => [cell(figures[f]), cell(figures[`${f}Ci95`])]),
    ].join(',');
  const lines = windows.flatMap((window) => [
    ...Object.entries(window.classes).map(([name, f]) => row(window, 'class', name, f)),
    ...Object.entries(window.services).map(([name, f]) => row(window, 'service', name, f)),
  ]);
  return `${[WINDOW_CSV_COLUMNS.join(','), ...lines].join('\n')}\n`;
}

/** A time in seconds as short as it can be, to the millisecond: `100`, `12.5`. */
function seconds(t: number): string {
  return String(Number(t.toFixed(3)));
}

/** A CSV field: quoted when it holds a comma, a quote or a line break. */
function csvText(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The text table of a run's windows: one row per window with, per class, its arrival
 * multiplier (when the schedule changes it), offered rate, rejection and attempts per request,
 * and per service its capacity multiplier (when changed), ρ, s, timeouts/s (with timeouts) and
 * the requests in it at the window's end. With several replications every cell is the mean.
 */
export function formatWindows(windows: readonly ReplicatedWindow[], withTimeouts: boolean): string {
  const [first] = windows;
  if (first === undefined) return '(no windows)';
  const changed = (pick: (w: ReplicatedWindow) => Figures | undefined) =>
    windows.some((w) => (pick(w)?.multiplier ?? 1) !== 1);
  const columns: Column[] = [{ heading: 't (s)' }];
  const cells: ((w: ReplicatedWindow) => string)[] = [
    (w) => `${seconds(w.start)}–${seconds(w.end)}`,
  ];
  const add = (heading: string, cell: (w: ReplicatedWindow) => string) => {
    columns.push({ heading });
    cells.push(cell);
  };
  for (const name of Object.keys(first.classes)) {
    const figure = (w: ReplicatedWindow, key: string) =>
      (w.classes[name] as Figures | undefined)?.[key] ?? Number.NaN;
    if (changed((w) => w.classes[name]))
      add(`${name} ×γ`, (w) => fixed(figure(w, 'multiplier'), 2));
    add(`${name} offered/s`, (w) => fixed(figure(w, 'offered'), 1));
    add(`${name} rejection`, (w) => fixed(figure(w, 'rejection')));
    add(`${name} attempts/req`, (w) => fixed(figure(w, 'attemptsPerRequest'), 2));
  }
  for (const name of Object.keys(first.services)) {
    const figure = (w: ReplicatedWindow, key: string) =>
      (w.services[name] as Figures | undefined)?.[key] ?? Number.NaN;
    if (changed((w) => w.services[name]))
      add(`${name} ×μ`, (w) => fixed(figure(w, 'multiplier'), 2));
    add(`${name} ρ`, (w) => fixed(figure(w, 'rho'), 2));
    add(`${name} s`, (w) => fixed(figure(w, 's')));
    if (withTimeouts) add(`${name} timeouts/s`, (w) => fixed(figure(w, 'timeouts'), 1));
    add(`${name} in system`, (w) => fixed(figure(w, 'inSystem'), 1));
  }
  return formatTable(
    columns,
    windows.map((w) => cells.map((cell) => cell(w))),
  );
}
