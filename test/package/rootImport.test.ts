import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// `import 'difftry'` is the runtime library and must not load the research
// stack. The module graph of src/index.ts is walked statically (every `import` and `export … from`,
// type-only ones left out since they vanish at build) and checked against what a service that
// only retries its calls should never pay for.

const ROOT = resolve('src/index.ts');

/** Folders of src/ the root entry must not reach. */
const FORBIDDEN_FOLDERS = [
  'src/sim/',
  'src/config/',
  'src/deploy/',
  'src/cli/',
  'src/mesh/',
  'src/testbed/',
];
/** Packages the root entry must not load (the CLI's, the simulator's, the spec parser's). */
const FORBIDDEN_PACKAGES = [
  'zod',
  'yaml',
  'hdr-histogram-js',
  'commander',
  'cli-progress',
  'prom-client',
  '@grpc/grpc-js',
];

/** Value imports of one module: relative paths resolved to files, packages by name. */
function imports(file: string): { files: string[]; packages: string[] } {
  const text = readFileSync(file, 'utf8');
  const files: string[] = [];
  const packages: string[] = [];
  const statement = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  for (const match of text.matchAll(statement)) {
    if (match[1] !== undefined) continue; // `import type` / `export type`: erased
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

function moduleGraph(entry: string): { files: Set<string>; packages: Set<string> } {
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

describe('the root entry (`import "difftry"`)', () => {
  const graph = moduleGraph(ROOT);
  const files = [...graph.files].map((file) => relative(process.cwd(), file).replaceAll('\\', '/'));

  it('reaches no module of the simulator, the spec parser, the CLI, the mesh or the testbed', () => {
    expect(
      files.filter((file) => FORBIDDEN_FOLDERS.some((folder) => file.startsWith(folder))),
    ).toStrictEqual([]);
  });

  it('loads none of the research stack’s packages', () => {
    expect([...graph.packages].filter((name) => FORBIDDEN_PACKAGES.includes(name))).toStrictEqual(
      [],
    );
  });

  it('does load the runtime library it exists for', () => {
    // A walker that found nothing would pass the two tests above: check it sees the adapters.
    expect(files).toEqual(
      expect.arrayContaining([
        'src/runtime/fetch.ts',
        'src/runtime/undici.ts',
        'src/runtime/retry.ts',
      ]),
    );
    // And it reads value imports of packages: the request context's async_hooks.
    expect(graph.packages.has('node:async_hooks')).toBe(true);
  });
});
