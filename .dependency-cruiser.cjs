// The layers of src/ (docs/design.md, "Architecture"), checked by `npm run lint:layers` as part of
// `npm test`. Arrows point down only:
//
//   cli ─► experiments ─► testbed ─► mesh ─► runtime ─► policy ─► model ─► core
//                    └──► sim ───────────────────────┘ config ─┘   stats ─┘
//             testbed ─► xds ─► deploy ─► config (the xDS control plane, the mesh configs)
//             mesh ─► config (the sidecar reads its config file)
//   cli ─► ui (the web UI's server) ─► experiments, testbed, deploy, config, …
//   experiments ─► traces ─► config (networks inferred from trace files)
//
// A layer may import itself and the layers its rule allows, nothing above; no cycles anywhere.

/** The testbed and every layer below it: what the experiments and the UI's server build on. */
const TESTBED_AND_BELOW = [
  'core',
  'model',
  'stats',
  'report',
  'policy',
  'runtime',
  'config',
  'deploy',
  'mesh',
  'sim',
  'xds',
  'testbed',
];

/** Each layer and the layers it may import (besides itself). */
const LAYERS = {
  core: [],
  model: ['core'],
  stats: ['core', 'model'],
  report: ['core', 'model', 'stats'],
  policy: ['core', 'model'],
  runtime: ['core', 'model', 'policy'],
  config: ['core', 'model', 'policy'],
  deploy: ['core', 'model', 'policy', 'config'],
  sim: ['core', 'model', 'stats', 'policy'],
  mesh: ['core', 'model', 'stats', 'policy', 'runtime', 'config'],
  xds: ['core', 'model', 'policy', 'config', 'deploy'],
  traces: ['core', 'model', 'policy', 'config'],
  testbed: TESTBED_AND_BELOW.filter((layer) => layer !== 'testbed'),
  experiments: [...TESTBED_AND_BELOW, 'traces'],
  ui: [...TESTBED_AND_BELOW, 'traces', 'experiments'],
  cli: null, // the top: may import every layer
};

const ALL = Object.keys(LAYERS);

const layerRules = Object.entries(LAYERS)
  .filter(([, allowed]) => allowed !== null)
  .map(([layer, allowed]) => {
    const forbidden = ALL.filter((other) => other !== layer && !allowed.includes(other));
    return {
      name: `layer-${layer}`,
      comment: `src/${layer} may import only ${allowed.length === 0 ? 'itself' : allowed.join(', ')}`,
      severity: 'error',
      from: { path: `^src/${layer}/` },
      to: { path: `^src/(${forbidden.join('|')})/` },
    };
  });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-root-entry-inside',
      comment: 'src/index.ts is the package root for users; code inside imports the modules',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/index\\.ts$' },
    },
    {
      name: 'no-circular',
      comment: 'no module imports itself back, through any path, not even for a type',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'model-is-browser-safe',
      comment: 'the model runs in a browser: no Node built-in, directly or through a dependency',
      severity: 'error',
      from: { path: '^src/(core|model)/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
