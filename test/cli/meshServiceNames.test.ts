import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { meshSidecarsCommand } from '../../src/cli/meshCommand.js';
import { meshEnvoyCommand } from '../../src/cli/meshEnvoyCommand.js';
import {
  GATEWAY_FILE as GATEWAY_API_FILE,
  meshGatewayApiCommand,
} from '../../src/cli/meshGatewayApiCommand.js';
import { GATEWAY_FILE as ISTIO_FILE, meshIstioCommand } from '../../src/cli/meshIstioCommand.js';
import { meshK8sCommand } from '../../src/cli/meshK8sCommand.js';
import { meshLinkerdCommand } from '../../src/cli/meshLinkerdCommand.js';

// Any valid service name renders for every mesh: services named after every file the generators
// write (the edge's included) and after every object name they derive (`<edge>-ingress`,
// `<edge>-edge`, `<service>-<class>`, `<service>-unclassified`), and a class named like the
// unclassified route.

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'difftry-names-'));
  dirs.push(dir);
  return dir;
};

const CALLEES = [
  'gateway',
  'edge',
  'edge.istio-gateway',
  'edge.gateway',
  'web-ingress',
  'web-edge',
  'web-gold',
  'web-unclassified',
  'db',
  'db-gold',
];
const FILE = [
  'classes:',
  '  - { name: gold, retries: 3, timeoutMs: 300 }',
  '  - { name: unclassified, retries: 2 }',
  '  - { name: bronze, retries: 1 }',
  'services:',
  `  - { name: web, capacity: 100, queue: 20, arrivals: { gold: 1, bronze: 5 }, calls: [${CALLEES.map((to) => `{ to: ${JSON.stringify(to)} }`).join(', ')}] }`,
  ...CALLEES.map(
    (name) => `  - { name: ${JSON.stringify(name)}, capacity: 100, queue: 10, calls: [] }`,
  ),
].join('\n');

const SERVICES = ['web', ...CALLEES];

describe('every mesh renders any valid service name', () => {
  const run = async (
    command: (out: string, file: string) => Promise<string>,
    ownFile: (stem: string) => readonly string[],
    edgeFiles: readonly string[],
  ) => {
    const dir = await tempDir();
    const file = join(dir, 'net.yaml');
    await writeFile(file, FILE);
    const out = join(dir, 'out');
    await command(out, file);
    const names = (await readdir(out)).sort();
    const expected = [
      ...SERVICES.flatMap((name) => ownFile(name.replace(/[^A-Za-z0-9._-]/g, '_'))),
      ...edgeFiles,
    ].sort();
    expect(names).toEqual(expected);
  };

  it('istio: the edge file cannot be a service’s, nor an ingress route a service’s route', async () => {
    await run(
      (out, file) => meshIstioCommand({ file, out }),
      (stem) => [`${stem}.istio.yaml`],
      [ISTIO_FILE],
    );
  });

  it('gateway-api: likewise for the Gateway’s file and the edge routes', async () => {
    await run(
      (out, file) => meshGatewayApiCommand({ file, out }),
      (stem) => [`${stem}.gateway-api.yaml`],
      [GATEWAY_API_FILE],
    );
  });

  it('linkerd: per-class routes and the unclassified route never share a name', async () => {
    await run(
      (out, file) => meshLinkerdCommand({ file, out }),
      (stem) => (stem === 'web' ? [] : [`${stem}.linkerd.yaml`]),
      [],
    );
  });

  it('envoy, k8s and the sidecars', async () => {
    await run(
      (out, file) => meshEnvoyCommand({ file, out }),
      (stem) => [`${stem}.envoy.yaml`, `${stem}.xds.json`],
      [],
    );
    await run(
      (out, file) => meshK8sCommand({ file, out, appImage: 'registry.example/{service}:1.0' }),
      (stem) => [`${stem}.k8s.yaml`],
      [],
    );
    await run(
      (out, file) => meshSidecarsCommand({ file, out }),
      (stem) => [`${stem}.yaml`],
      [],
    );
  });
});
