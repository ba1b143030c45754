import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleGraph } from './moduleGraph.js';

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
