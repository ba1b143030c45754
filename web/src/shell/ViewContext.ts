import type { UrlState } from './UrlState.js';

/** What the shell gives every view when it mounts it. */
export interface ViewContext {
  /** The URL's parameters (shared by every view; prefix a view's own keys). */
  readonly url: UrlState;
  /** The theme now, and a way to hear when it changes (charts re-read CSS colours). */
  theme(): 'light' | 'dark';
  onThemeChange(listener: () => void): void;
}

/** A view of the page: mounted once, into its own section, the first time it is shown. */
export interface View {
  mount(root: HTMLElement, context: ViewContext): void;
  /** Called each time the view is shown again (a chart may need its size re-read). */
  shown?(): void;
}
