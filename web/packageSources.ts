import { fileURLToPath } from 'node:url';
import type { Alias } from 'vite';

// How the repository resolves the page's imports of the package. The page (web/src) imports the
// library as a user's page would, through the package's public subpaths (`difftry/model`,
// `difftry/config`, …; never a relative path out of web/, which test/package/webImports.test.ts
// checks), but it is built from the repository's src/, so dist/ need not be built first: each
// subpath resolves to its source entry. web/vite.config.ts (the page's build), vitest.config.ts
// (test/web runs the page's modules), and the `paths` of web/tsconfig.json and tsconfig.json say
// the same; test/package/webImports.test.ts holds them to this table and to package.json.

/**
 * The package subpaths the page imports, each at the source file its `exports` entry in
 * package.json is built from: the `browser` condition's where there is one (`difftry/config`
 * without file reading), else the default.
 */
export const PACKAGE_SOURCES: Readonly<Record<string, string>> = {
  'difftry/experiments': 'src/experiments/index.ts',
  'difftry/model': 'src/model/index.ts',
  'difftry/report': 'src/report/index.ts',
  'difftry/sim': 'src/sim/index.ts',
  'difftry/config': 'src/config/browser.ts',
  'difftry/ui': 'src/ui/index.ts',
};

/** The built-in example networks (the package's examples/), bundled as text: `@examples/*.yaml`. */
export const EXAMPLES_ALIAS = '@examples';

/** A path of the repository (relative to its root), absolute. */
export function repositoryPath(path: string): string {
  return fileURLToPath(new URL(`../${path}`, import.meta.url));
}

/** The aliases of the page's build: each of {@link PACKAGE_SOURCES}, and {@link EXAMPLES_ALIAS}. */
export function webAliases(): Alias[] {
  return [
    ...Object.entries(PACKAGE_SOURCES).map(([subpath, source]) => ({
      find: new RegExp(`^${subpath}$`),
      replacement: repositoryPath(source),
    })),
    { find: EXAMPLES_ALIAS, replacement: repositoryPath('examples') },
  ];
}
