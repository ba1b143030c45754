import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import vitestConfig from '../../vitest.config.js';
import { EXAMPLES_ALIAS, PACKAGE_SOURCES, webAliases } from '../../web/packageSources.js';
import viteConfig from '../../web/vite.config.js';

// The web UI (web/src) imports the library as a user's page would: through the package's public
// subpaths (`difftry/model`, `difftry/spec`, …), never by a relative path out of web/ (`../src/…`).
// Inside the repository those subpaths resolve to their source entries (web/packageSources.ts);
// the page's build, vitest and both tsconfig files must say the same, and agree with package.json.

const WEB = resolve('web');
const WEB_SRC = resolve('web/src');

/** Every file under `dir`, absolute. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** What a file of the page names to load: imports, re-exports, `import()`, globs, worker URLs, CSS. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  if (file.endsWith('.css')) {
    for (const m of text.matchAll(/@import\s+(?:url\()?\s*['"]?([^'")\s;]+)/g)) {
      found.push(m[1] ?? '');
    }
    for (const m of text.matchAll(/url\(\s*['"]?([^'")]+)/g)) found.push(m[1] ?? '');
    return found.filter((s) => !/^(?:data:|https?:|#)/.test(s));
  }
  // import … from, export … from, import(…), require(…): as the compiler reads them.
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    found.push(fileName);
  }
  for (const m of text.matchAll(/import\.meta\.glob\s*(?:<[^>]*>)?\(\s*(['"`])(.*?)\1/g)) {
    found.push(m[2] ?? '');
  }
  for (const m of text.matchAll(/new URL\(\s*(['"`])(.*?)\1\s*,\s*import\.meta\.url/g)) {
    found.push(m[2] ?? '');
  }
  return found;
}

/** A source entry (repository-relative) from an `exports` target: `./dist/x/y.js` → `src/x/y.ts`. */
function sourceOf(target: string): string {
  return target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
}

/** A tsconfig's `paths`, each mapped to one repository-relative file. */
function tsconfigPaths(file: string): Record<string, string> {
  const { config, error } = ts.readConfigFile(file, ts.sys.readFile);
  if (error !== undefined)
    throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const paths = (config.compilerOptions?.paths ?? {}) as Record<string, string[]>;
  return Object.fromEntries(
    Object.entries(paths).map(([name, [target]]) => [
      name,
      relative('.', resolve(dirname(file), target ?? ''))
        .split(sep)
        .join('/'),
    ]),
  );
}

/** The page's sources: web/src (web/vite.config.ts and web/packageSources.ts set up the build). */
const pageFiles = filesUnder(WEB_SRC);

describe('the web UI imports the package by its public subpaths', () => {
  it('reads its sources (the check below sees something)', () => {
    const named = pageFiles.flatMap(specifiers);
    expect(named.filter((s) => s.startsWith('difftry/')).length).toBeGreaterThan(20);
    expect(named).toContain('./simulateWorker.ts');
  });

  it('has no file under web/src naming a relative path out of web/ (such as ../src/)', () => {
    const escaping = pageFiles.flatMap((file) =>
      specifiers(file)
        .filter((specifier) => {
          if (!specifier.startsWith('.')) return false;
          const target = resolve(dirname(file), specifier);
          return target !== WEB && !target.startsWith(WEB + sep);
        })
        .map((specifier) => `${relative('.', file)}: ${specifier}`),
    );
    expect(escaping).toStrictEqual([]);
  });

  it('imports only the subpaths its build resolves (web/packageSources.ts)', () => {
    const unknown = pageFiles.flatMap((file) =>
      specifiers(file)
        .filter((s) => (s === 'difftry' || s.startsWith('difftry/')) && !(s in PACKAGE_SOURCES))
        .map((s) => `${relative('.', file)}: ${s}`),
    );
    expect(unknown).toStrictEqual([]);
  });

  it('resolves each subpath to the source its package.json export is built from', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      exports: Record<string, string | Record<string, string>>;
    };
    for (const [subpath, source] of Object.entries(PACKAGE_SOURCES)) {
      const entry = pkg.exports[`./${subpath.slice('difftry/'.length)}`];
      expect(entry, `package.json exports ${subpath}`).toBeTypeOf('object');
      const conditions = entry as Record<string, string>;
      const target = conditions.browser ?? conditions.default ?? '';
      expect(sourceOf(target), subpath).toBe(source);
    }
  });

  it('is resolved alike by the page, vitest and both tsconfig files', () => {
    expect(tsconfigPaths('web/tsconfig.json')).toStrictEqual(PACKAGE_SOURCES);
    expect(tsconfigPaths('tsconfig.json')).toStrictEqual(PACKAGE_SOURCES);
    expect(viteConfig.resolve?.alias).toStrictEqual(webAliases());
    expect(vitestConfig.resolve?.alias).toStrictEqual(webAliases());
    expect(webAliases().map((a) => a.find)).toContain(EXAMPLES_ALIAS);
  });
});
