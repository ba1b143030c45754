import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// The static module graph of an entry, as the build keeps it: every `import` and `export … from`
// with a value in it; `import type`, `import { type A, type B }` and dynamic `import()` vanish
// from the built code and are left out. test/package/rootImport.test.ts and
// test/mesh/meshImport.test.ts check what their entries load with it.

/** Value imports of one module: relative paths resolved to files, packages by name. */
function imports(file: string): { files: string[]; packages: string[] } {
  const text = readFileSync(file, 'utf8');
  const files: string[] = [];
  const packages: string[] = [];
  const statement = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  for (const match of text.matchAll(statement)) {
    if (match[1] !== undefined) continue;
    // `import { type A, type B } from …` is erased as well.
    const names = /\{([^}]*)\}/.exec(match[0])?.[1];
    const onlyTypes =
      names !== undefined &&
      !/^\s*(?:import|export)\s+[\w$]+\s*,/.test(match[0]) &&
      names
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '')
        .every((name) => name.startsWith('type '));
    if (onlyTypes) continue;
    const target = match[2] as string;
    if (!target.startsWith('.')) {
      packages.push(
        target.startsWith('@')
          ? target.split('/').slice(0, 2).join('/')
          : (target.split('/')[0] as string),
      );
      continue;
    }
    const path = join(dirname(file), target).replace(/\.js$/, '.ts');
    files.push(existsSync(path) ? path : join(dirname(file), target, 'index.ts'));
  }
  return { files, packages };
}

/** Every module file `entry` loads at import (itself included), and every package they load. */
export function moduleGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    const found = imports(file);
    for (const name of found.packages) packages.add(name);
    pending.push(...found.files);
  }
  return { files, packages };
}
