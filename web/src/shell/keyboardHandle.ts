/** Options of {@link makeKeyboardHandle}. */
export interface KeyboardHandleOptions {
  /** Accessible name: `t_z, the last timeout`. */
  readonly label: string;
  /** The value now, and its range (for aria and clamping). */
  readonly value: () => number;
  readonly min: () => number;
  readonly max: () => number;
  /** One arrow-key step (Page Up/Down move ten). */
  readonly step: () => number;
  /** How the value is read out (`0.412 s`). */
  readonly format: (value: number) => string;
  /** Moves the handle to a new value (clamped to [min, max]). */
  readonly onMove: (value: number) => void;
}

/**
 * Makes a draggable SVG handle keyboard-operable: focusable, `role="slider"` with its value in
 * aria attributes, arrows move it a step, Page Up/Down ten, Home/End to the ends. The pointer drag
 * itself is the chart's (d3-drag); call `refresh` after every move so aria stays true.
 */
export function makeKeyboardHandle(
  element: SVGElement,
  options: KeyboardHandleOptions,
): { refresh(): void } {
  element.setAttribute('tabindex', '0');
  element.setAttribute('role', 'slider');
  element.setAttribute('aria-label', options.label);
  const refresh = () => {
    element.setAttribute('aria-valuemin', String(options.min()));
    element.setAttribute('aria-valuemax', String(options.max()));
    element.setAttribute('aria-valuenow', String(options.value()));
    element.setAttribute('aria-valuetext', options.format(options.value()));
  };
  element.addEventListener('keydown', (event) => {
    const step = options.step();
    const moves: Record<string, (v: number) => number> = {
      ArrowRight: (v) => v + step,
      ArrowUp: (v) => v + step,
      ArrowLeft: (v) => v - step,
      ArrowDown: (v) => v - step,
      PageUp: (v) => v + 10 * step,
      PageDown: (v) => v - 10 * step,
      Home: () => options.min(),
      End: () => options.max(),
    };
    const move = moves[(event as KeyboardEvent).key];
    if (move === undefined) return;
    event.preventDefault();
    const next = Math.min(options.max(), Math.max(options.min(), move(options.value())));
    options.onMove(next);
    refresh();
  });
  refresh();
  return { refresh };
}
