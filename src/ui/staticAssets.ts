import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Content types of what the built page is made of. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Where the built page is: `dist/web` beside the compiled CLI (`dist/ui/` → `dist/web/`), or,
 * when running from the sources (tsx), the repository's `dist/web` after `npm run build`.
 * @throws Error saying how to build it when neither has an index.html.
 */
export function defaultAssetsDir(): string {
  const candidates = [
    new URL('../web/', import.meta.url),
    new URL('../../dist/web/', import.meta.url),
  ];
  for (const candidate of candidates) {
    const dir = fileURLToPath(candidate);
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  throw new Error(
    'the web UI is not built: run `npm run build` in the repository (it writes dist/web)',
  );
}

/**
 * The file a URL path names inside `root`, or undefined when the path leaves it (`..`, a
 * backslash, a NUL) — never a file outside the built page.
 */
export function assetPath(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  const full = normalize(join(root, relative));
  const base = normalize(root.endsWith(sep) ? root : root + sep);
  return full.startsWith(base) ? full : undefined;
}

/** Reads one asset: its bytes and content type, or undefined when there is no such file. */
export async function readAsset(
  root: string,
  urlPath: string,
): Promise<{ body: Buffer; type: string } | undefined> {
  const path = assetPath(root, urlPath);
  if (path === undefined) return undefined;
  try {
    const body = await readFile(path);
    return { body, type: TYPES[extname(path)] ?? 'application/octet-stream' };
  } catch {
    return undefined;
  }
}
