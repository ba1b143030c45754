import { drag, type ScaleLinear, select } from 'd3';
import { significant } from '../../../src/report/numberFormat.js';
import { makeKeyboardHandle } from '../shell/keyboardHandle.js';
import { handleTimeout, type TimeRange } from './timeRange.js';

/** Options of {@link timeoutHandle}. */
export interface TimeoutHandleOptions {
  /** The `data-testid` of the handle (tests and docs/ui.md name it). */
  readonly testId: string;
  /** Accessible name: `t_z, the ceiling`. */
  readonly label: string;
  /** The chart's inner group: pointer positions are read in its coordinates. */
  readonly container: SVGGElement;
  /** The time scale now (s → px of the container). */
  readonly x: () => ScaleLinear<number, number>;
  readonly range: () => TimeRange;
  /** The timeout now (s). */
  readonly value: () => number;
  /** Called with the timeout the handle was moved to (s), already rounded and in range. */
  readonly onMove: (valueS: number) => void;
}

/**
 * Makes an SVG group a timeout handle: dragged along the time axis with the pointer (d3-drag,
 * relative to where it was grabbed) and moved with the keyboard (`makeKeyboardHandle`: arrows
 * one step of the range, Page Up/Down ten, Home/End the ends). Both report a timeout rounded
 * to 4 significant digits, so `aria-valuenow` is exactly the timeout the view solves with.
 * The caller positions the group and calls `refresh()` after every move.
 */
export function timeoutHandle(
  element: SVGGElement,
  options: TimeoutHandleOptions,
): { refresh(): void } {
  element.dataset.testid = options.testId;
  element.classList.add('handle');
  const moveTo = (valueS: number) => options.onMove(handleTimeout(valueS, options.range()));
  select(element).call(
    drag<SVGGElement, unknown>()
      .container(options.container)
      .subject(() => ({ x: options.x()(options.value()), y: 0 }))
      .on('drag', (event: { x: number }) => moveTo(options.x().invert(event.x))),
  );
  return makeKeyboardHandle(element, {
    label: options.label,
    value: options.value,
    min: () => options.range().minS,
    max: () => options.range().upperS,
    step: () => options.range().stepS,
    format: (valueS) => `${significant(valueS)} s`,
    onMove: moveTo,
  });
}
