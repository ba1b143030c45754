import './style.css';
import { applyTheme, initialTheme, type Theme } from './shell/theme.js';
import { locationState } from './shell/UrlState.js';
import type { View, ViewContext } from './shell/ViewContext.js';

/** The views, each loaded the first time it is shown (so the first load fetches one). */
const VIEWS: Readonly<Record<string, () => Promise<View>>> = {
  network: async () => (await import('./network/networkView.js')).networkView,
  timeouts: async () => (await import('./timeouts/timeoutsView.js')).timeoutsView,
  testbed: async () => (await import('./testbed/testbedView.js')).testbedView,
};

const url = locationState();
let theme: Theme = initialTheme(url.get('theme'));
applyTheme(theme);
const themeListeners: (() => void)[] = [];
const context: ViewContext = {
  url,
  theme: () => theme,
  onThemeChange: (listener) => themeListeners.push(listener),
};

document.querySelector('.theme-toggle')?.addEventListener('click', () => {
  theme = theme === 'dark' ? 'light' : 'dark';
  applyTheme(theme);
  url.set({ theme });
  for (const listener of themeListeners) listener();
});

const mounted = new Map<string, View>();

/** Shows one view (mounting it the first time) and hides the others. */
async function show(name: string): Promise<void> {
  const id = Object.hasOwn(VIEWS, name) ? name : 'network';
  for (const button of document.querySelectorAll<HTMLButtonElement>('nav [data-view]')) {
    button.setAttribute('aria-current', button.dataset.view === id ? 'page' : 'false');
  }
  for (const section of document.querySelectorAll<HTMLElement>('main > .view')) {
    section.hidden = section.id !== id;
  }
  url.set({ view: id });
  const root = document.getElementById(id) as HTMLElement;
  const existing = mounted.get(id);
  if (existing !== undefined) {
    existing.shown?.();
    return;
  }
  const view = await (VIEWS[id] as () => Promise<View>)();
  mounted.set(id, view);
  view.mount(root, context);
  root.dataset.ready = 'true';
}

for (const button of document.querySelectorAll<HTMLButtonElement>('nav [data-view]')) {
  button.addEventListener('click', () => void show(button.dataset.view ?? 'network'));
}
void show(url.get('view') ?? 'network');
