import { type FSWatcher, watch } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { builtinExample } from '../config/examples.js';
import { parseNetwork } from '../config/parseNetwork.js';
import { readSpecFile } from '../config/readSpecFile.js';
import type { NetworkSpec } from '../config/schema.js';
import type { XdsServer } from '../xds/index.js';
import { xdsBootstrap } from '../xds/xdsBootstrap.js';
import type { CommandOutput, Emit } from './CommandOutput.js';
import type { NetworkSource } from './input.js';
import { UsageError } from './UsageError.js';
import {
  bracketed,
  checkEndpointServices,
  grpcClientNotes,
  type HostPort,
  oneLine,
  parseEndpoints,
  parseHostPort,
  type ReloadTrigger,
  reloadLine,
  reloadNetwork,
  requestLine,
  shouldReload,
  startLine,
} from './xdsServe.js';

/** Options of {@link xdsServeCommand}. */
export interface XdsServeOptions extends NetworkSource {
  /** `HOST:PORT` to listen on; port 0 asks the system for a free one. */
  readonly listen: string;
  /** `SERVICE=HOST:PORT` values, one per endpoint. */
  readonly endpoint: readonly string[];
  /** Aborted to stop serving (the CLI aborts it on SIGINT and SIGTERM). */
  readonly stop: AbortSignal;
  /** Given the function that reloads the network; the CLI calls it on SIGHUP. */
  readonly onReloadRequest?: (reload: () => void) => void;
  /** Where the lines go (start, versions, NACKs); default stderr. */
  readonly log?: (line: string) => void;
  /**
   * How long the file must be quiet before a change is reloaded, ms.
   * @default 100
   */
  readonly debounceMs?: number;
}

/** Where the network comes from, read again on each reload. */
interface Source {
  readonly file?: string;
  read(): Promise<{ readonly text: string; readonly name: string }>;
}

function networkSource(options: NetworkSource): Source {
  const { file, example } = options;
  if (file !== undefined && example !== undefined) {
    throw new UsageError('give a network FILE or --example NAME, not both');
  }
  if (example !== undefined) {
    return {
      read: async () => {
        const { fileName, text } = builtinExample(example);
        return { text, name: fileName };
      },
    };
  }
  if (file === undefined) {
    throw new UsageError('missing network: give a FILE (YAML or JSON) or --example NAME');
  }
  return {
    file,
    read: async () => ({ text: await readSpecFile(file, 'a readable network file'), name: file }),
  };
}

/** `createXdsServer`, loaded when first needed: it needs the optional gRPC and protobuf peers. */
async function loadXdsServer(): Promise<typeof import('../xds/xdsServer.js').createXdsServer> {
  try {
    return (await import('../xds/xdsServer.js')).createXdsServer;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_MODULE_NOT_FOUND') {
      throw new UsageError(
        `difftry xds serve needs the optional packages @grpc/grpc-js, @grpc/grpc-js-xds, @bufbuild/protobuf and protobufjs (${oneLine(error)})`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** grpc-js's messages for an address it cannot bind. */
const BIND_ERRORS = /^(No address added|Name resolution failed)/;

/**
 * `difftry xds serve FILE --listen HOST:PORT --endpoint SERVICE=HOST:PORT …`: serves the
 * network's routes and retry policies over ADS until `stop` aborts. Prints (to `log`) one line
 * when it listens, one per NACK, and one per reload: when the file changes (the directory is
 * watched, so an editor that replaces the file is seen too; changes are debounced) or on
 * `onReloadRequest`'s call. A reload that fails keeps the last good version served.
 * @throws {SpecError} for a bad network file; {@link UsageError} for a bad flag, an
 *   `--endpoint` service the network lacks, or an address it cannot listen on (exit 2).
 */
export async function xdsServeCommand(options: XdsServeOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const listen = parseHostPort(options.listen, '--listen', 0);
  const endpoints = parseEndpoints(options.endpoint);
  const source = networkSource(options);
  const parse = (text: string, name: string): NetworkSpec => {
    const network = parseNetwork(text, name);
    checkEndpointServices(network, endpoints);
    return network;
  };
  const first = await source.read();
  const network = parse(first.text, first.name);
  const createXdsServer = await loadXdsServer();
  let server: XdsServer;
  try {
    server = await createXdsServer({
      network,
      endpoints,
      host: bracketed(listen.host),
      port: listen.port,
      onRequest: (event) => {
        const line = requestLine(event);
        if (line !== undefined) log(line);
      },
    });
  } catch (error) {
    if (error instanceof Error && BIND_ERRORS.test(error.message)) {
      throw new UsageError(`--listen ${options.listen}: cannot listen: ${oneLine(error)}`, {
        cause: error,
      });
    }
    throw error;
  }
  const address: HostPort = { host: listen.host, port: server.port };
  log(startLine(network.services.length, address));
  for (const line of grpcClientNotes(network)) log(line);

  let stopped = false;
  let lastRead = first.text;
  let pending: Promise<void> = Promise.resolve();
  const reloadOnce = async (trigger: ReloadTrigger) => {
    if (stopped) return;
    let read: string;
    let load: () => NetworkSpec;
    try {
      const { text, name } = await source.read();
      read = text;
      load = () => parse(text, name);
    } catch (error) {
      // Not a file's text: a file that cannot be read, told apart by its reason.
      read = `\0${oneLine(error)}`;
      load = () => {
        throw error;
      };
    }
    if (stopped || !shouldReload(trigger, read, lastRead)) return;
    lastRead = read;
    let loaded: NetworkSpec | undefined;
    const outcome = reloadNetwork(server, () => {
      loaded = load();
      return loaded;
    });
    log(reloadLine(outcome));
    if (outcome.kind === 'updated' && loaded !== undefined) {
      for (const line of grpcClientNotes(loaded)) log(line);
    }
  };
  // One reload at a time, in the order asked.
  const reload = (trigger: ReloadTrigger) => {
    pending = pending
      .then(() => reloadOnce(trigger))
      .then(() => watcher?.rearm())
      .catch((error: unknown) => log(`difftry xds: reload failed: ${oneLine(error)}`));
  };
  const watcher =
    source.file === undefined
      ? undefined
      : watchFile(source.file, () => reload('watch'), options.debounceMs ?? 100, log);
  options.onReloadRequest?.(() => reload('signal'));

  if (!options.stop.aborted) {
    await new Promise<void>((done) =>
      options.stop.addEventListener('abort', () => done(), { once: true }),
    );
  }
  stopped = true;
  watcher?.close();
  await pending;
  log(`difftry xds: shutting down (version ${server.version})`);
  await server.close();
}

/** A watch on a file, for {@link xdsServeCommand}. */
interface FileWatch {
  /** Watches the file again: after an editor replaced it, the old watch sees nothing more. */
  rearm(): void;
  close(): void;
}

/**
 * Calls `onChange` once the file (or its directory) has been quiet for `debounceMs` after a
 * change. The directory is watched so that a file replaced by an editor, or a Kubernetes
 * ConfigMap's symlink swap, is seen; the file itself too (re-armed after each reload), so that
 * a file linked from elsewhere is.
 */
function watchFile(
  path: string,
  onChange: () => void,
  debounceMs: number,
  log: (line: string) => void,
): FileWatch {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const changed = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  };
  const open = (target: string, quiet: boolean): FSWatcher | undefined => {
    try {
      const watcher = watch(target, changed);
      watcher.on('error', () => watcher.close());
      return watcher;
    } catch (error) {
      if (!quiet) {
        log(`difftry xds: cannot watch ${target} (${oneLine(error)}); SIGHUP still reloads`);
      }
      return undefined;
    }
  };
  const directory = open(dirname(resolve(path)), false);
  let file = open(path, true);
  return {
    rearm() {
      if (closed) return;
      file?.close();
      file = open(path, true);
    },
    close() {
      closed = true;
      clearTimeout(timer);
      directory?.close();
      file?.close();
    },
  };
}

/** Options of {@link xdsBootstrapCommand}. */
export interface XdsBootstrapCommandOptions {
  /** The control plane, `HOST:PORT`. */
  readonly server: string;
  /** The client's node id. */
  readonly node?: string;
}

/**
 * `difftry xds bootstrap --server HOST:PORT [--node ID]`: the `GRPC_XDS_BOOTSTRAP` JSON that
 * points a proxyless gRPC client at a `difftry xds serve`.
 * @throws {UsageError} for a bad `--server` or an empty `--node`.
 */
export function xdsBootstrapCommand(options: XdsBootstrapCommandOptions): CommandOutput {
  parseHostPort(options.server, '--server');
  if (options.node !== undefined && options.node.trim() === '') {
    throw new UsageError('--node: expected a node id, got an empty one');
  }
  const bootstrap = xdsBootstrap({
    server: options.server,
    ...(options.node !== undefined && { node: options.node }),
  });
  return { stdout: `${JSON.stringify(bootstrap, null, 2)}\n` };
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/**
 * Registers `difftry xds serve` and `difftry xds bootstrap` on `program`. `serve` runs until
 * SIGINT or SIGTERM (then exits 0) and reloads its file on SIGHUP.
 */
export function registerXdsCommand(program: Command, emit: Emit): Command {
  const xds = program
    .command('xds')
    .description('an xDS control plane serving per-class retries to proxyless gRPC and Envoy');
  xds
    .command('serve')
    .description("serve a network's per-class routes and retry policies over ADS (xDS v3)")
    .argument('[file]', 'network file (YAML or JSON); reloaded when it changes and on SIGHUP')
    .option(
      '--example <name>',
      'use a built-in example instead of a file (single, two-tier, hotel, hotel-calls)',
    )
    .option('--listen <host:port>', 'where the control plane listens (port 0: any)', '127.0.0.1:0')
    .addOption(
      new Option(
        '--endpoint <service=host:port>',
        'an instance of a service (repeat for more services or instances); a service without one has no endpoints',
      )
        .argParser(collect)
        .default([], 'none'),
    )
    .addHelpText(
      'after',
      '\nPrints one line to stderr when it listens, one per NACK and one per reload. When the file\n' +
        'changes, or on SIGHUP, it is read and checked again: a good one is served as the next\n' +
        'version, a bad one is reported on one line and the last good version stays served.\n' +
        'SIGINT or SIGTERM stop it. docs/xds.md has the resources it serves and how to use them.\n\n' +
        'Examples:\n' +
        '  difftry xds serve net.yaml --listen 127.0.0.1:18000 --endpoint geo=10.0.0.5:8080\n' +
        '  difftry xds bootstrap --server 127.0.0.1:18000 > bootstrap.json',
    )
    .action(
      async (
        file: string | undefined,
        opts: { example?: string; listen: string; endpoint: string[] },
      ) => {
        const controller = new AbortController();
        const stop = () => controller.abort();
        let reload: (() => void) | undefined;
        const hangup = () => reload?.();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        process.on('SIGHUP', hangup);
        try {
          await xdsServeCommand({
            ...(file !== undefined && { file }),
            ...(opts.example !== undefined && { example: opts.example }),
            listen: opts.listen,
            endpoint: opts.endpoint,
            stop: controller.signal,
            onReloadRequest: (next) => {
              reload = next;
            },
          });
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          process.off('SIGHUP', hangup);
        }
      },
    );
  xds
    .command('bootstrap')
    .description(
      'the GRPC_XDS_BOOTSTRAP JSON pointing a proxyless gRPC client at difftry xds serve',
    )
    .requiredOption('--server <host:port>', 'the control plane (difftry xds serve --listen)')
    .option('--node <id>', 'the client’s node id, as the NACK lines name it', 'difftry-client')
    .addHelpText(
      'after',
      '\nExample:\n' +
        '  difftry xds bootstrap --server 127.0.0.1:18000 --node frontend-1 > bootstrap.json\n' +
        '  GRPC_XDS_BOOTSTRAP=bootstrap.json node client.js   # target xds:///geo',
    )
    .action((opts: { server: string; node: string }) => {
      emit(xdsBootstrapCommand(opts));
    });
  return xds;
}
