/** Small DOM builders the Network view's parts share. */

/** A new HTML element with attributes (and text, if given). */
export function make<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string>> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) created.setAttribute(key, value);
  if (text !== undefined) created.textContent = text;
  return created;
}

/** A new SVG element with attributes. */
export function makeSvg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string>> = {},
): SVGElementTagNameMap[K] {
  const created = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attributes)) created.setAttribute(key, value);
  return created;
}

/** A panel (the shell's `.panel`) with its heading. */
export function panel(title: string): HTMLDivElement {
  const div = make('div', { class: 'panel' });
  div.append(make('h2', {}, title));
  return div;
}

/** A wrapping row (the shell's `.row`) of children. */
export function row(...children: Node[]): HTMLDivElement {
  const div = make('div', { class: 'row' });
  div.append(...children);
  return div;
}

/** Sets an element's text only when it changes (a slider event touches no more than it must). */
export function setText(element: Element, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}
