import { join } from 'node:path';
import { type Command, Option } from 'commander';
import { checkSidecarConfig } from '../config/parseSidecarConfig.js';
import type { SidecarConfigInput } from '../config/sidecarSchema.js';
import { sidecarsFromNetwork } from '../deploy/sidecarsFromNetwork.js';
import { integerIn, loadNetwork, type NetworkSource } from './input.js';
import { registerMeshEnvoyCommand } from './meshEnvoyCommand.js';
import { fileStem, meshYaml } from './meshFiles.js';
import { registerMeshGatewayApiCommand } from './meshGatewayApiCommand.js';
import { registerMeshGrafanaCommand } from './meshGrafanaCommand.js';
import { registerMeshIstioCommand } from './meshIstioCommand.js';
import { registerMeshJobCommand } from './meshJobCommand.js';
import { registerMeshK8sCommand } from './meshK8sCommand.js';
import { registerMeshLinkerdCommand } from './meshLinkerdCommand.js';
import { checkOutputDirectory, makeOutputDirectory, writeOutputFiles } from './outputPath.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry mesh sidecars`. */
export interface MeshSidecarsOptions extends NetworkSource {
  /** Write one file per service into this directory instead of printing. */
  readonly out?: string;
  /** JSON instead of YAML. */
  readonly json?: boolean;
  readonly host?: string;
  readonly basePort?: number;
  readonly appBasePort?: number;
  readonly tokenEnv?: string;
}

/**
 * `difftry mesh sidecars FILE`: one sidecar config per service of a network file. Without
 * `--out`, prints them: YAML documents separated by `---`, or with `--json` one JSON document
 * `{ "sidecars": { SERVICE: config } }`. With `--out DIR`, writes `DIR/SERVICE.yaml` (`.json`)
 * and prints one line per file (with `--json`, `{ "files": [...] }`). Every config is checked
 * before anything is written.
 * @returns what to print on stdout.
 */
export async function meshSidecarsCommand(options: MeshSidecarsOptions): Promise<string> {
  const network = await loadNetwork(options);
  if (options.tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.tokenEnv)) {
    throw new UsageError(
      `--token-env: expected an environment variable name, got "${options.tokenEnv}"`,
    );
  }
  let configs: SidecarConfigInput[];
  try {
    configs = sidecarsFromNetwork(network, {
      ...(options.host !== undefined && { host: options.host }),
      ...(options.basePort !== undefined && { basePort: options.basePort }),
      ...(options.appBasePort !== undefined && { appBasePort: options.appBasePort }),
      ...(options.tokenEnv !== undefined && { tokenEnv: options.tokenEnv }),
    });
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  // A generated config that fails its own schema is a bug; a bad --host is the user's input.
  for (const config of configs) checkSidecarConfig(config, `sidecar of ${config.service}`);

  const extension = options.json ? 'json' : 'yaml';
  const render = (config: SidecarConfigInput) =>
    options.json
      ? `${JSON.stringify(config, null, 2)}\n`
      : `# difftry sidecar of ${config.service} (difftry proxy --config FILE; see docs/mesh.md)\n${meshYaml(config)}`;
  if (options.out === undefined) {
    if (options.json) {
      const sidecars = Object.fromEntries(configs.map((config) => [config.service, config]));
      return JSON.stringify({ sidecars }, null, 2);
    }
    return configs.map(render).join('---\n');
  }
  const files = configs.map((config) => ({
    path: join(options.out as string, `${fileStem(config.service)}.${extension}`),
    config,
  }));
  const seen = new Map<string, string>();
  for (const { path, config } of files) {
    const other = seen.get(path);
    if (other !== undefined) {
      throw new UsageError(
        `services "${other}" and "${config.service}" would both be written to ${path}`,
      );
    }
    seen.set(path, config.service);
  }
  await checkOutputDirectory(options.out, '--out');
  await makeOutputDirectory(options.out, '--out');
  await writeOutputFiles(
    files.map(({ path, config }) => ({ path, text: render(config) })),
    '--out',
  );
  if (options.json) return JSON.stringify({ files: files.map((f) => f.path) }, null, 2);
  return files.map(({ path, config }) => `wrote ${path} (sidecar of ${config.service})`).join('\n');
}

/**
 * Registers `difftry mesh sidecars FILE` on `program`, under the `mesh` command (made if absent,
 * so other `mesh` subcommands can live beside it).
 */
export function registerMeshCommand(program: Command): Command {
  const mesh =
    program.commands.find((command) => command.name() === 'mesh') ??
    program.command('mesh').description('generate the DiffTry policy for a service mesh');
  mesh
    .command('sidecars')
    .description('one sidecar config per service of a network file (for difftry proxy)')
    .argument('[file]', 'network file (YAML or JSON)')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option('--out <dir>', 'write SERVICE.yaml (or .json) files into this directory')
    .option('--json', 'JSON instead of YAML')
    .option('--host <host>', 'the host every listener binds and every URL names', '127.0.0.1')
    .addOption(
      new Option(
        '--base-port <port>',
        'service i listens on base + 2i (inbound) and base + 2i + 1 (outbound)',
      )
        .argParser(integerIn('--base-port', 1, 65_535))
        .default(15_000),
    )
    .addOption(
      new Option('--app-base-port <port>', "service i's application listens on base + i")
        .argParser(integerIn('--app-base-port', 1, 65_535))
        .default(8080),
    )
    .option(
      '--token-env <name>',
      'the environment variable holding the mesh token',
      'DIFFTRY_MESH_TOKEN',
    )
    .addHelpText(
      'after',
      '\nEach config has: the classes and backoff of the file; an upstream per service it routes or\n' +
        "calls to, with that service's retry overrides; admission c = 1, m = the service's queue;\n" +
        'edge classification (no rules yet: add them) where requests arrive from outside; trust in\n' +
        'its callers, proven by the mesh token.\n\n' +
        'Examples:\n' +
        '  difftry mesh sidecars examples/hotel-calls.yaml --out sidecars/\n' +
        '  difftry mesh sidecars --example hotel --json',
    )
    .action(async (file: string | undefined, opts: Omit<MeshSidecarsOptions, 'file'>) => {
      const text = await meshSidecarsCommand({ ...opts, ...(file !== undefined && { file }) });
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
  registerMeshEnvoyCommand(mesh);
  registerMeshIstioCommand(mesh);
  registerMeshLinkerdCommand(mesh);
  registerMeshGatewayApiCommand(mesh);
  registerMeshK8sCommand(mesh);
  registerMeshJobCommand(mesh);
  registerMeshGrafanaCommand(mesh);
  return mesh;
}
