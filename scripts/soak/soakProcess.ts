/**
 * The soak's sidecar processes (scripts/soak.ts): each is the real CLI, `difftry proxy --config
 * FILE`, run by node with tsx's loader so that its PID is the sidecar's own (not an `npx` or
 * `tsx` wrapper), and sampled from `/proc/PID`. An executor.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResourceSample } from '../../src/experiments/soak/soakCeilings.js';

/** The repository root: the sidecars run there, as `npm run` would run them. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The CLI's entry point, run from source: the `difftry` bin of package.json (`dist/….js`, the
 * build) mapped back to the TypeScript it is built from (`src/….ts`). A process is spawned, no
 * module of the CLI is imported. Read when a sidecar starts, not when this module loads.
 */
function cliEntry(): string {
  return join(ROOT, sourceOfBuilt(packageBin(ROOT)));
}

function packageBin(root: string): string {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    readonly bin?: Readonly<Record<string, string>>;
  };
  const bin = manifest.bin?.difftry;
  if (bin === undefined) throw new Error('package.json names no difftry bin');
  return bin;
}

function sourceOfBuilt(path: string): string {
  return path.replace(/^(\.\/)?dist\//, 'src/').replace(/\.js$/, '.ts');
}

/** A sidecar started by {@link startSidecarProcess}. */
export interface SidecarProcess {
  /** The name the report gives it: `edge`, `mesh`. */
  readonly name: string;
  readonly pid: number;
  /** Listener URLs by the name its listening line gives (`inbound`, `outbound`, `admin`). */
  readonly urls: Readonly<Record<string, string>>;
  /** Its stderr so far (its last 64 kB). */
  stderr(): string;
  /** When it exited, if it has: its code or signal. */
  exit(): { readonly code: number | null; readonly signal: string | null } | undefined;
  /** SIGTERM (graceful drain), then SIGKILL after `killAfterMs`; resolves when it has exited. */
  stop(killAfterMs: number): Promise<void>;
}

const STDERR_KEEP = 64 * 1024;

/**
 * Starts `difftry proxy --config configPath` and waits for its listening lines (at most
 * `startTimeoutMs`): one per listener, `difftry proxy: SERVICE NAME URL …`, ended by the
 * `metrics` line.
 * @throws Error with its stderr when it exits or stays silent first.
 */
export async function startSidecarProcess(
  name: string,
  configPath: string,
  env: Readonly<Record<string, string>>,
  startTimeoutMs: number,
): Promise<SidecarProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', cliEntry(), 'proxy', '--config', configPath],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Whatever ends the soak (an uncaught error included), its sidecars must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stderr = '';
  let stdout = '';
  let exited: { code: number | null; signal: string | null } | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      process.off('exit', killOnExit);
      resolve();
    });
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_KEEP);
  });
  child.stdout?.setEncoding('utf8');
  const urls: Record<string, string> = {};
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} sidecar did not start in ${startTimeoutMs} ms: ${stderr.trim()}`));
    }, startTimeoutMs);
    child.stdout?.on('data', (text: string) => {
      stdout += text;
      for (;;) {
        const newline = stdout.indexOf('\n');
        if (newline < 0) break;
        const line = stdout.slice(0, newline);
        stdout = stdout.slice(newline + 1);
        const match = /^difftry proxy: \S+ (inbound|outbound|admin) (http:\/\/\S+)/.exec(line);
        if (match !== null) urls[match[1] as string] = match[2] as string;
        if (/^difftry proxy: \S+ metrics /.test(line)) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    exitPromise.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} sidecar exited at start (${exited?.code}): ${stderr.trim()}`));
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name} sidecar has no pid`);
  return {
    name,
    pid,
    urls,
    stderr: () => stderr,
    exit: () => exited,
    async stop(killAfterMs) {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      await exitPromise;
      clearTimeout(timer);
    },
  };
}

/**
 * Reads a process's RSS (`VmRSS` of `/proc/PID/status`) and its open descriptors (the entries
 * of `/proc/PID/fd`); undefined once it is gone.
 */
export async function sampleProcess(
  pid: number,
  atMs: number,
): Promise<ResourceSample | undefined> {
  try {
    const [status, fds] = await Promise.all([
      readFile(`/proc/${pid}/status`, 'utf8'),
      readdir(`/proc/${pid}/fd`),
    ]);
    const rss = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
    // A zombie has no VmRSS: it has exited.
    if (rss === null) return undefined;
    return { atMs, rssBytes: Number(rss[1]) * 1024, fds: fds.length };
  } catch {
    return undefined;
  }
}
