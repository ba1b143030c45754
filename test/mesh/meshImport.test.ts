import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleGraph } from '../package/moduleGraph.js';

// `import 'difftry/mesh'` serves the pure decisions (edgeClassifier, upstreamRouter, peerCheck,
// AdmissionGate) besides `startSidecar`, and must load no more than they need: what only a running
// sidecar uses (the config schema, prom-client, undici, node:http, OpenTelemetry) is imported by
// `startSidecar` itself. The static graph of src/mesh/index.ts (value imports only: `import type`
// and dynamic `import()` vanish from it) is checked here; bench/importTime.ts times it.

const ENTRY = resolve('src/mesh/index.ts');

/** Packages the mesh entry must not load at import. */
const LAZY_PACKAGES = ['zod', 'yaml', 'prom-client', 'undici', 'node:http', '@opentelemetry/api'];

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
