import { BUILTIN_EXAMPLE_FILES } from 'difftry/config';

/** A network file's name (as error messages name it) and text. */
export interface NetworkText {
  readonly fileName: string;
  readonly text: string;
}

/** The built-in examples' names, as `--example` takes them. */
export const EXAMPLE_NAMES: readonly string[] = Object.keys(BUILTIN_EXAMPLE_FILES);

/** The example the view opens when nothing else is asked for: hotelReservation (Figure 5). */
export const DEFAULT_EXAMPLE = 'hotel';

/**
 * The example files' texts by file name (`hotel.yaml`), each its own small chunk, loaded the
 * first time it is picked; `@examples` is the package's examples/ folder (web/vite.config.ts).
 */
const EXAMPLE_TEXTS = new Map(
  Object.entries(
    import.meta.glob<string>('@examples/*.yaml', { query: '?raw', import: 'default' }),
  ).map(([path, load]) => [path.slice(path.lastIndexOf('/') + 1), load]),
);

/** A built-in example by name, named as the CLI names it (`examples/hotel.yaml`); or undefined. */
export async function exampleNetwork(name: string): Promise<NetworkText | undefined> {
  const file = Object.hasOwn(BUILTIN_EXAMPLE_FILES, name) ? BUILTIN_EXAMPLE_FILES[name] : undefined;
  const load = file === undefined ? undefined : EXAMPLE_TEXTS.get(file);
  if (file === undefined || load === undefined) return undefined;
  return { fileName: `examples/${file}`, text: await load() };
}

/** The built-in example a file name is (`examples/hotel.yaml` → `hotel`), if it is one. */
export function exampleNamed(fileName: string): string | undefined {
  return EXAMPLE_NAMES.find((name) => `examples/${BUILTIN_EXAMPLE_FILES[name]}` === fileName);
}

/**
 * The network `difftry ui FILE` (or `--example NAME`) opens first, from the server's
 * `GET api/network`; undefined when it has none (204) or there is no such server (a dev build).
 */
export async function serverNetwork(): Promise<NetworkText | undefined> {
  try {
    const response = await fetch('api/network', { headers: { accept: 'application/json' } });
    if (response.status !== 200) return undefined;
    const body = (await response.json()) as Partial<NetworkText>;
    return typeof body.fileName === 'string' && typeof body.text === 'string'
      ? { fileName: body.fileName, text: body.text }
      : undefined;
  } catch {
    return undefined;
  }
}
