/**
 * The page's one tooltip: a floating box that follows the pointer over a chart's marks. Charts
 * call `show` on pointer enter/move with the text to show and `hide` on leave.
 */
export interface Tooltip {
  show(event: { clientX: number; clientY: number }, text: string): void;
  hide(): void;
}

let shared: Tooltip | undefined;

/** The shared tooltip (the `.tooltip` element of index.html, created if missing). */
export function tooltip(): Tooltip {
  if (shared !== undefined) return shared;
  let box = document.querySelector<HTMLElement>('.tooltip');
  if (box === null) {
    box = document.createElement('div');
    box.className = 'tooltip';
    box.setAttribute('role', 'tooltip');
    box.hidden = true;
    document.body.append(box);
  }
  const element = box;
  shared = {
    show(event, text) {
      element.textContent = text;
      element.hidden = false;
      const { innerWidth } = window;
      const x = Math.min(event.clientX + 12, innerWidth - element.offsetWidth - 8);
      element.style.left = `${Math.max(4, x)}px`;
      element.style.top = `${event.clientY + 14}px`;
    },
    hide() {
      element.hidden = true;
    },
  };
  return shared;
}
