import { type Command, Option } from 'commander';
import { loadSidecarConfigFile } from '../config/parseSidecarConfig.js';
import type { SidecarConfig } from '../config/sidecarSchema.js';
import { type SidecarHandle, startSidecar } from '../mesh/Sidecar.js';
import { nonNegativeNumber } from './input.js';
import { UsageError } from './UsageError.js';

/** Options of {@link proxyCommand}. */
export interface ProxyCommandOptions {
  /** The sidecar config file (YAML or JSON). */
  readonly config: string;
  /** How long shutdown waits for requests in flight, ms; default the config's `shutdownGraceMs`. */
  readonly graceMs?: number;
  /** Aborted to shut the sidecar down (the CLI aborts it on SIGINT and SIGTERM). */
  readonly stop: AbortSignal;
  /** Where the listening lines go (one per listener); default stdout. */
  readonly write?: (line: string) => void;
  /** Where notes go (shutdown, a handler that threw); default stderr. */
  readonly warn?: (line: string) => void;
  /** Where the config's environment variables are read; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Errors of `listen()` that are the config's fault (or the machine's), not difftry's. */
const LISTEN_ERRORS = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * `difftry proxy --config FILE`: runs a sidecar until `stop` aborts, then shuts it down
 * gracefully. Prints one line per listener, `NAME URL …details`, e.g.
 * `inbound http://127.0.0.1:15000 → app http://127.0.0.1:8080 (c = 1, m = 50, edge)`.
 * @throws {SpecError} for a bad config; {@link UsageError} when a port cannot be bound (exit 2).
 */
export async function proxyCommand(options: ProxyCommandOptions): Promise<void> {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const config = await loadSidecarConfigFile(options.config);
  let sidecar: SidecarHandle;
  try {
    sidecar = await startSidecar(config, {
      source: options.config,
      log: warn,
      ...(options.env !== undefined && { env: options.env }),
    });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && LISTEN_ERRORS.has(code)) {
      throw new UsageError(
        `${options.config}: cannot listen: ${error instanceof Error ? error.message : code}`,
        { cause: error },
      );
    }
    throw error;
  }
  for (const line of listenerLines(config, sidecar)) write(line);
  if (!options.stop.aborted) {
    await new Promise<void>((resolve) =>
      options.stop.addEventListener('abort', () => resolve(), { once: true }),
    );
  }
  const graceMs = options.graceMs ?? config.shutdownGraceMs;
  warn(`difftry proxy: shutting down, draining requests in flight for up to ${graceMs} ms`);
  await sidecar.close({ graceMs });
}

/** One line per listener: its name, its URL, what it does. */
export function listenerLines(config: SidecarConfig, sidecar: SidecarHandle): string[] {
  const lines: string[] = [];
  const metricsOn = sidecar.adminUrl ?? sidecar.outboundUrl ?? sidecar.inboundUrl;
  if (sidecar.inboundUrl !== undefined && config.inbound !== undefined) {
    const { app, concurrency, capacity, edge, trust } = config.inbound;
    const notes = [`c = ${concurrency}`, `m = ${capacity}`];
    if (edge !== undefined) notes.push('edge');
    if (trust !== undefined && trust.peers.length > 0)
      notes.push(`trusts ${trust.peers.join(', ')}`);
    lines.push(`inbound ${sidecar.inboundUrl} → app ${app} (${notes.join(', ')})`);
  }
  if (sidecar.outboundUrl !== undefined && config.outbound !== undefined) {
    const names = config.outbound.upstreams.map((upstream) => upstream.name);
    lines.push(`outbound ${sidecar.outboundUrl} → ${names.join(', ')}`);
  }
  if (sidecar.adminUrl !== undefined) lines.push(`admin ${sidecar.adminUrl}`);
  lines.push(`metrics ${metricsOn}/metrics, health ${metricsOn}/healthz`);
  return lines.map((line) => `difftry proxy: ${config.service} ${line}`);
}

/**
 * Registers `difftry proxy --config FILE [--grace-ms MS]` on `program`: runs the sidecar until
 * SIGINT or SIGTERM, then drains and exits.
 */
export function registerProxyCommand(program: Command): Command {
  return program
    .command('proxy')
    .description(
      'run a DiffTry sidecar: retries and per-try timeouts on the way out, admission and classification on the way in',
    )
    .requiredOption('--config <file>', 'sidecar config (YAML or JSON); see docs/mesh.md')
    .addOption(
      new Option(
        '--grace-ms <ms>',
        "how long shutdown waits for requests in flight (default: the config's shutdownGraceMs)",
      ).argParser(nonNegativeNumber('--grace-ms')),
    )
    .addHelpText(
      'after',
      '\nPrints one line per listener, then serves until SIGINT or SIGTERM; it then stops accepting,\n' +
        'drains what is in flight and exits. A bad config exits 2 with one line on stderr.\n\n' +
        'Example:\n  DIFFTRY_MESH_TOKEN=… difftry proxy --config examples/sidecar.yaml',
    )
    .action(async (opts: { config: string; graceMs?: number }) => {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        await proxyCommand({
          config: opts.config,
          ...(opts.graceMs !== undefined && { graceMs: opts.graceMs }),
          stop: controller.signal,
        });
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}
