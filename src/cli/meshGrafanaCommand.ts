import { basename, extname } from 'node:path';
import type { Command } from 'commander';
import {
  type GrafanaDashboardOptions,
  grafanaDashboard,
} from '../deploy/grafana/grafanaDashboard.js';
import { loadNetwork, type NetworkSource } from './input.js';
import { checkOutputPath, writeOutputFiles } from './outputPath.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry mesh grafana`. */
export interface MeshGrafanaOptions extends NetworkSource {
  /** Write the dashboard JSON to this file instead of printing it. */
  readonly out?: string;
  /** The Prometheus label naming a series' service; default `service` (the sidecar's). */
  readonly serviceLabel?: string;
  /** Rows open rather than collapsed. */
  readonly expanded?: boolean;
}

/** A Prometheus label name a query may match on. */
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * `difftry mesh grafana FILE`: a Grafana dashboard of the difftry sidecars' Prometheus metrics,
 * one row per service of the network file (see `grafanaDashboard`). Without `--out`, prints the
 * dashboard JSON; with `--out FILE`, writes it there (never half-written) and prints one line.
 * A network file without a `name` is named after the file.
 * @returns what to print on stdout.
 */
export async function meshGrafanaCommand(options: MeshGrafanaOptions): Promise<string> {
  const { serviceLabel, out } = options;
  if (
    serviceLabel !== undefined &&
    (!LABEL_NAME.test(serviceLabel) || serviceLabel.startsWith('__'))
  ) {
    throw new UsageError(
      `--service-label: expected a Prometheus label name (letters, digits and _, not starting with a digit or __), got "${serviceLabel}"`,
    );
  }
  const network = await loadNetwork(options);
  if (out !== undefined) await checkOutputPath(out, '--out');
  const fileName =
    options.file !== undefined ? basename(options.file, extname(options.file)) : undefined;
  const generatorOptions: GrafanaDashboardOptions = {
    ...(network.name === undefined && fileName !== undefined && { name: fileName }),
    ...(serviceLabel !== undefined && { serviceLabel }),
    ...(options.expanded === true && { collapsed: false }),
  };
  let text: string;
  let uid: string | undefined;
  try {
    const dashboard = grafanaDashboard(network, generatorOptions);
    uid = dashboard.uid;
    text = `${JSON.stringify(dashboard, null, 2)}\n`;
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  if (out === undefined) return text;
  await writeOutputFiles([{ path: out, text }], '--out');
  const count = network.services.length;
  return `wrote ${out} (Grafana dashboard ${uid}: ${count} service${count === 1 ? '' : 's'}, one row each)`;
}

/** Registers `difftry mesh grafana FILE` under the `mesh` command. */
export function registerMeshGrafanaCommand(mesh: Command): void {
  mesh
    .command('grafana')
    .description(
      "a Grafana dashboard of the difftry sidecars' Prometheus metrics, one row per service",
    )
    .argument('[file]', 'network file (YAML or JSON)')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option('--out <file>', 'write the dashboard JSON to this file instead of stdout')
    .option(
      '--service-label <name>',
      "the Prometheus label naming each series' service (default service, the sidecar's own)",
    )
    .option('--expanded', 'rows open rather than collapsed')
    .addHelpText(
      'after',
      '\nEach row shows one service: rejection share, admitted and shed requests and latency per\n' +
        'class at its inbound listener; for a service that calls others, attempts per call,\n' +
        'retries per upstream and class, and the latency of its calls out. Pick the Prometheus\n' +
        'data source and the classes with the dashboard variables. docs/mesh.md, "Grafana\n' +
        'dashboard", says what it expects Prometheus to scrape.\n\n' +
        'Examples:\n' +
        '  difftry mesh grafana examples/hotel-calls.yaml --out hotel-dashboard.json\n' +
        '  difftry mesh grafana --example hotel > dashboard.json',
    )
    .action(async (file: string | undefined, opts: Omit<MeshGrafanaOptions, 'file'>) => {
      const text = await meshGrafanaCommand({ ...opts, ...(file !== undefined && { file }) });
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
}
