/**
 * The page's state in its URL: every view keeps its parameters in the query string (`view`,
 * `example`, `arrival.low`, `tz`, …), so a link reproduces the view. Writes replace the current
 * history entry (a slider drag is not a hundred back-button steps).
 */
export interface UrlState {
  /** The parameter's value, or undefined when the URL has none. */
  get(key: string): string | undefined;
  /** A number parameter, or `fallback` when missing or not a finite number. */
  number(key: string, fallback: number): number;
  /** Sets (or with undefined, removes) parameters, then rewrites the URL once. */
  set(values: Readonly<Record<string, string | number | undefined>>): void;
}

/** The UrlState of `location`, written through `history.replaceState`. */
export function locationState(): UrlState {
  const read = () => new URLSearchParams(window.location.search);
  return {
    get: (key) => read().get(key) ?? undefined,
    number: (key, fallback) => {
      const text = read().get(key);
      const value = text === null || text.trim() === '' ? Number.NaN : Number(text);
      return Number.isFinite(value) ? value : fallback;
    },
    set: (values) => {
      const params = read();
      for (const [key, value] of Object.entries(values)) {
        if (value === undefined) params.delete(key);
        else params.set(key, String(value));
      }
      const query = params.toString();
      window.history.replaceState(
        null,
        '',
        `${window.location.pathname}${query === '' ? '' : `?${query}`}`,
      );
    },
  };
}
