import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// `import 'difftry/mesh'` serves the pure decisions (edgeClassifier, upstreamRouter, peerCheck,
// AdmissionGate) besides `startSidecar`, and must load no more than they need: what only a running
// sidecar uses (the config schema, prom-client, undici, node:http, OpenTelemetry) is imported by
// `startSidecar` itself. The static graph of src/mesh/index.ts (value imports only: `import type`
// and dynamic `import()` vanish from it) is checked here; bench/importTime.ts times it.

const ENTRY = resolve('src/mesh/index.ts');

/** Packages the mesh entry must not load at import. */
const LAZY_PACKAGES = ['zod', 'yaml', 'prom-client', 'undici', 'node:http', '@opentelemetry/api'];

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

describe('the mesh entry (`import "difftry/mesh"`)', () => {
  const graph = moduleGraph(ENTRY);
  const files = [...graph.files].map((file) => relative(process.cwd(), file).replaceAll('\\', '/'));

  it('loads none of what only a running sidecar needs', () => {
    expect([...graph.packages].filter((name) => LAZY_PACKAGES.includes(name))).toStrictEqual([]);
    expect(files.filter((file) => file.startsWith('src/config/'))).toStrictEqual([
      'src/config/SpecError.ts',
    ]);
  });

  it('does load the decisions it exports and the entry point', () => {
    // A walker that found nothing would pass the test above: check it sees the mesh's own files.
    expect(files).toEqual(
      expect.arrayContaining([
        'src/mesh/Sidecar.ts',
        'src/mesh/edgeRules.ts',
        'src/mesh/upstreamRouting.ts',
        'src/mesh/AdmissionGate.ts',
      ]),
    );
    expect(graph.packages.has('node:crypto')).toBe(true);
  });
});
