/** The page's colour theme: the user's choice, else the system's. */
export type Theme = 'light' | 'dark';

/** Reads the theme the page should start in: `?theme=`, else the system preference. */
export function initialTheme(fromUrl: string | undefined): Theme {
  if (fromUrl === 'light' || fromUrl === 'dark') return fromUrl;
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Applies a theme to the document (CSS variables switch on `data-theme`). */
export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
}

/** A CSS variable's value on the document, for charts drawn with d3. */
export function cssColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}
