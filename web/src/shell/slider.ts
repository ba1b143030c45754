/** Options of {@link rangeSlider}. */
export interface RangeSliderOptions {
  /** The `data-testid` of the `<input type=range>` (tests and docs/ui.md name it). */
  readonly testId: string;
  readonly label: string;
  readonly min: number;
  readonly max: number;
  readonly step: number;
  readonly value: number;
  /** How the value is printed beside the slider (units included). */
  readonly format?: (value: number) => string;
  /** Called on every input event (drag, arrow key) with the new value. */
  readonly onInput: (value: number) => void;
}

/**
 * A labelled native range input: keyboard-operable (arrows, Page Up/Down, Home/End), with its
 * value printed beside it. Returns the wrapper and a setter that moves it without firing onInput.
 */
export function rangeSlider(options: RangeSliderOptions): {
  element: HTMLLabelElement;
  input: HTMLInputElement;
  set(value: number): void;
} {
  const format = options.format ?? ((v: number) => String(v));
  const element = document.createElement('label');
  element.className = 'slider';
  const name = document.createElement('span');
  name.className = 'slider-label';
  name.textContent = options.label;
  const input = document.createElement('input');
  input.type = 'range';
  input.min = String(options.min);
  input.max = String(options.max);
  input.step = String(options.step);
  input.value = String(options.value);
  input.dataset.testid = options.testId;
  const shown = document.createElement('output');
  shown.className = 'slider-value';
  shown.textContent = format(options.value);
  input.addEventListener('input', () => {
    const value = Number(input.value);
    shown.textContent = format(value);
    options.onInput(value);
  });
  element.append(name, input, shown);
  return {
    element,
    input,
    set(value) {
      input.value = String(value);
      shown.textContent = format(Number(input.value));
    },
  };
}
