import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { builtinExample } from '../config/examples.js';
import { parseNetwork } from '../config/parseNetwork.js';
import { readSpecFile } from '../config/readSpecFile.js';
import { listenHost } from '../ui/listenHost.js';
import { isLoopbackAddress } from '../ui/loopback.js';
import { runTestbedJob } from '../ui/runTestbedJob.js';
import { defaultAssetsDir } from '../ui/staticAssets.js';
import type { TestbedJobRunner } from '../ui/TestbedJob.js';
import { startUiServer, type UiServer } from '../ui/uiServer.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import { integerIn } from './input.js';
import { UsageError } from './UsageError.js';

/** Defaults of `difftry ui`. */
export const UI_DEFAULTS = Object.freeze({ host: '127.0.0.1', port: 7410 });

/** Options of `difftry ui`. */
export interface UiOptions {
  /** A network file the page opens first. */
  readonly file?: string;
  /** A built-in example the page opens first (`--example`). */
  readonly example?: string;
  readonly port?: number;
  /** Given explicitly (`--host`): only then may it be a non-loopback address. */
  readonly host?: string;
  /** More names the page may be opened by (`--allow-host`), besides loopback and `host`. */
  readonly allowHost?: readonly string[];
  /** Most event streams open at once (`--max-event-streams`). */
  readonly maxEventStreams?: number;
  /** Open the page in the system's browser (`--open`). */
  readonly open?: boolean;
  /** The built page; default the package's `dist/web`. */
  readonly assetsDir?: string;
  /** The testbed runner; default the real testbed. */
  readonly runner?: TestbedJobRunner;
  /** Where the command's lines go (stderr in the CLI). */
  readonly log?: (line: string) => void;
  /** Called once the server listens (tests read its URL). */
  readonly onListening?: (server: UiServer) => void;
}

/** The line a non-loopback `--host` prints: what listening there exposes. */
export function exposureWarning(host: string): string {
  return (
    `difftry ui: listening on ${host}, not loopback: every machine that reaches this address can open ` +
    'the page and start testbed runs through its API (each takes this machine’s cores for minutes); ' +
    'there is no authentication'
  );
}

/**
 * `difftry ui`: serves the web UI on loopback until `stop` is aborted (SIGINT or SIGTERM in the
 * CLI). A FILE is checked with the network schema first (a bad one exits 2, nothing served) and
 * opened by the page.
 */
export async function uiCommand(
  options: Readonly<UiOptions>,
  stop: AbortSignal,
): Promise<CommandOutput> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const parsedHost = listenHost(options.host ?? UI_DEFAULTS.host);
  if ('error' in parsedHost) throw new UsageError(parsedHost.error);
  const host = parsedHost.address;
  const extraHosts: string[] = [];
  for (const name of options.allowHost ?? []) {
    const parsed = listenHost(name);
    if ('error' in parsed) throw new UsageError(parsed.error.replace(/^--host/, '--allow-host'));
    extraHosts.push(parsed.address);
  }
  if (options.file !== undefined && options.example !== undefined) {
    throw new UsageError('give a network FILE or --example NAME, not both');
  }
  let network: { fileName: string; text: string } | undefined;
  if (options.file !== undefined) {
    const text = await readSpecFile(options.file, 'a readable network file');
    parseNetwork(text, options.file);
    network = { fileName: options.file, text };
  } else if (options.example !== undefined) {
    network = builtinExample(options.example);
  }
  let assetsDir: string;
  try {
    assetsDir = options.assetsDir ?? defaultAssetsDir();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  let server: UiServer;
  try {
    server = await startUiServer({
      assetsDir,
      host,
      allowedHosts: extraHosts,
      ...(options.maxEventStreams !== undefined && { maxEventStreams: options.maxEventStreams }),
      port: options.port ?? UI_DEFAULTS.port,
      ...(network !== undefined && { network }),
      runner: options.runner ?? runTestbedJob,
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') {
      throw new UsageError(
        `--port ${options.port ?? UI_DEFAULTS.port} is in use; give another (--port 0 takes any free one)`,
      );
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new UsageError(`--host ${parsedHost.urlHost}: no such address on this machine`);
    }
    throw error;
  }
  // By the address bound, not the spelling: `127.1` and `localhost` are loopback, `0.0.0.0` not.
  if (!isLoopbackAddress(server.address)) log(exposureWarning(parsedHost.urlHost));
  log(`difftry ui: serving on ${server.url} (Ctrl-C stops it)`);
  options.onListening?.(server);
  if (options.open) openInBrowser(server.url, log);
  if (!stop.aborted) {
    await new Promise<void>((resolve) =>
      stop.addEventListener('abort', () => resolve(), { once: true }),
    );
  }
  await server.close();
  return { stdout: '', stderr: 'ui stopped' };
}

/** Opens a URL in the system's browser; says so when it cannot. */
function openInBrowser(url: string, log: (line: string) => void): void {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => log(`difftry ui: could not open a browser (${command}); open ${url}`));
  child.unref();
}

/** Registers `difftry ui`. */
export function registerUiCommand(program: Command, emit: Emit): void {
  program
    .command('ui')
    .description(
      'the web UI on loopback: the network and its rejection under sliders, the timeouts figures, the live testbed',
    )
    .argument('[file]', 'a network file (YAML or JSON) the page opens first')
    .option('--example <name>', 'a built-in example the page opens first')
    .option(
      '--port <n>',
      `port (default ${UI_DEFAULTS.port}; 0: any free one)`,
      integerIn('--port', 0, 65_535),
    )
    .option(
      '--host <address>',
      `address to listen on (default ${UI_DEFAULTS.host}); another than loopback exposes the page and its testbed API to the network`,
    )
    .option(
      '--allow-host <name>',
      'another host name the page may be opened by (repeatable); requests naming any other Host get 421',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--max-event-streams <n>',
      'most testbed event streams open at once (default 64)',
      integerIn('--max-event-streams', 1, 100_000),
    )
    .option('--open', 'open the page in the system browser')
    .addHelpText(
      'after',
      '\nThe page runs the models in the browser; the Testbed view starts `testbed run` or\n' +
        '`testbed fig5 --quick` here, one at a time. docs/ui.md shows each view.\n\n' +
        'Examples:\n  difftry ui --open\n  difftry ui examples/hotel-calls.yaml --port 0',
    )
    .action(async (file: string | undefined, opts: UiOptions) => {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        emit(await uiCommand({ ...opts, ...(file !== undefined && { file }) }, controller.signal));
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}
