import { drag, type ScaleLinear, type Selection } from 'd3';
import { makeKeyboardHandle } from '../shell/keyboardHandle.js';
import { secondsText } from './secondsText.js';
import { handleTimeout, type TimeRange } from './timeRange.js';

/** Options of {@link timeoutHandle}. */
export interface TimeoutHandleOptions {
  /** The `data-testid` of the handle (tests and docs/ui.md name it). */
  readonly testId: string;
  /** Accessible name: `t_z, the ceiling`. */
  readonly label: string;
  /** The time scale now (s → px of the container). */
  readonly x: () => ScaleLinear<number, number>;
  readonly range: () => TimeRange;
  /** The timeout now (s). */
  readonly value: () => number;
  /** Called with the timeout the handle was moved to (s), already rounded and in range. */
  readonly onMove: (valueS: number) => void;
}

/** A timeout handle, once built. */
export interface TimeoutHandle {
  /** The handle's group, at x = 0 of the timeout it shows: the caller draws its marks into it. */
  readonly group: Selection<SVGGElement, unknown, null, undefined>;
  /** Moves the handle to timeout `valueS` (s) on the time scale now, and updates its aria values. */
  place(valueS: number): void;
}

/**
 * Appends a timeout handle to a chart's inner group (`container`, whose coordinates pointer
 * positions are read in): dragged along the time axis with the pointer (d3-drag, relative to
 * where it was grabbed) and moved with the keyboard (`makeKeyboardHandle`: arrows one step of
 * the range, Page Up/Down ten, Home/End the ends). Both report a timeout rounded to 4
 * significant digits, so `aria-valuenow` is exactly the timeout the view solves with. The
 * caller draws the handle's marks into `group` and calls `place()` after every move.
 */
export function timeoutHandle(
  container: Selection<SVGGElement, unknown, null, undefined>,
  options: TimeoutHandleOptions,
): TimeoutHandle {
  const group = container.append('g');
  const element = group.node() as SVGGElement;
  element.dataset.testid = options.testId;
  element.classList.add('handle');
  const moveTo = (valueS: number) => options.onMove(handleTimeout(valueS, options.range()));
  group.call(
    drag<SVGGElement, unknown>()
      .container(container.node() as SVGGElement)
      .subject(() => ({ x: options.x()(options.value()), y: 0 }))
      .on('drag', (event: { x: number }) => moveTo(options.x().invert(event.x))),
  );
  const keyboard = makeKeyboardHandle(element, {
    label: options.label,
    value: options.value,
    min: () => options.range().minS,
    max: () => options.range().upperS,
    step: () => options.range().stepS,
    format: secondsText,
    onMove: moveTo,
  });
  return {
    group,
    place(valueS) {
      group.attr('transform', `translate(${options.x()(valueS)},0)`);
      keyboard.refresh();
    },
  };
}
