/** Options of {@link picker}. */
export interface PickerOptions<Value extends string> {
  /** The `data-testid` of the `<select>` (tests and docs/ui.md name it). */
  readonly testId: string;
  readonly label: string;
  /** The choices, in order, each with the text shown for it. */
  readonly options: readonly { readonly value: Value; readonly text: string }[];
  readonly value: Value;
  /** Called when the user picks another value. */
  readonly onPick: (value: Value) => void;
}

/** A labelled `<select>`, keyboard-operable as every native one. */
export function picker<Value extends string>(
  options: PickerOptions<Value>,
): { element: HTMLLabelElement; select: HTMLSelectElement } {
  const element = document.createElement('label');
  element.className = 'timeouts-picker';
  element.append(options.label);
  const select = document.createElement('select');
  select.dataset.testid = options.testId;
  for (const { value, text } of options.options) select.add(new Option(text, value));
  select.value = options.value;
  select.addEventListener('change', () => options.onPick(select.value as Value));
  element.append(select);
  return { element, select };
}
