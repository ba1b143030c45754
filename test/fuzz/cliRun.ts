import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli/runCli.js';
import type { CliCase, CliWord, OutputPath } from './arbitraries/cliArguments.js';

/** The environment variables the sidecar configs read, as a run sets them (undefined: unset). */
export interface CliEnvironment {
  readonly DIFFTRY_MESH_TOKEN?: string | undefined;
  readonly PREMIUM_API_KEYS?: string | undefined;
}

/** What one run did, with its command line as run (paths resolved), for the failure message. */
export interface CliRun {
  readonly argv: readonly string[];
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Problems with the output paths after the run, one sentence each. */
  readonly outputProblems: readonly string[];
}

/** A line cli-progress prints when stderr is not a terminal: `simulate [===---] 40% | ETA 3s`. */
const PROGRESS_LINE = /^\S+ \[[^\]]*\] \d+% \| ETA /;

/** The lines of stderr that are not progress: what "one line" counts. */
export function messageLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !PROGRESS_LINE.test(line));
}

/**
 * Exit 1 as a command documents it: a result, not a failure, said in one line (as grep's 1 says
 * "no match"). verify-uniqueness found a counterexample (and wrote it); tune found no point that
 * meets every constraint; analyze's fixed point did not converge.
 */
const RESULT_EXITS: Readonly<Record<string, RegExp>> = {
  'verify-uniqueness': /^difftry: \d+ configuration\(s\) converged to two distinct fixed points/,
  tune: /^difftry: tune: no retry limits in the grid meet every constraint/,
  analyze: /^difftry: (the fixed point did not converge|\d+ sweep point\(s\) did not converge)/,
};

function isResultExit(command: string, run: CliRun): boolean {
  const pattern = RESULT_EXITS[command];
  if (run.code !== 1 || pattern === undefined) return false;
  const lines = messageLines(run.stderr);
  return lines.length === 1 && pattern.test(lines[0] as string);
}

/** The broken promises of a run: an empty list when it kept every one. */
export function cliRunProblems(command: string, run: CliRun): string[] {
  const problems: string[] = [];
  const lines = messageLines(run.stderr);
  const result = isResultExit(command, run);
  if (run.code !== 0 && run.code !== 2 && !result) problems.push(`exit code ${run.code}`);
  if (lines.length > 1) problems.push(`${lines.length} lines on stderr`);
  if (/internal error/i.test(run.stderr + run.stdout)) problems.push('an internal error');
  if (/^\s+at /m.test(run.stderr) || /^\s+at .*:\d+:\d+\)?$/m.test(run.stdout)) {
    problems.push('a stack trace');
  }
  if (run.code === 2) {
    if (lines.length !== 1) problems.push('exit 2 without a line saying why');
    else if (!(lines[0] as string).startsWith('difftry')) problems.push('a line not from difftry');
    if (run.stdout !== '') problems.push('exit 2 with output on stdout');
  }
  if (run.code !== 0 && !result) problems.push(...run.outputProblems);
  return problems;
}

/** A temporary directory for one run, and what is in its output paths before the run. */
interface Workspace {
  readonly dir: string;
  readonly argv: string[];
  readonly outputs: {
    readonly path: string;
    readonly output: OutputPath;
    readonly before: string | undefined;
  }[];
}

function prepare(words: readonly CliWord[]): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'difftry-fuzz-'));
  const outputs: Workspace['outputs'][number][] = [];
  const argv = words.map((word, i) => {
    if (typeof word === 'string') return word;
    if (word.kind === 'input') {
      const path = join(dir, word.name);
      writeFileSync(path, word.text);
      return path;
    }
    const path = outputLocation(dir, word, i);
    const before = word.shape === 'existing-file' ? readFileSync(path, 'utf8') : undefined;
    outputs.push({ path, output: word, before });
    return path;
  });
  return { dir, argv, outputs };
}

function outputLocation(dir: string, output: OutputPath, i: number): string {
  const name = `out-${i}${output.directory ? '' : '.csv'}`;
  switch (output.shape) {
    case 'fresh':
      return join(dir, name);
    case 'missing-parent':
      return join(dir, 'missing', name);
    case 'directory': {
      const path = join(dir, `dir-${i}`);
      mkdirSync(path);
      return path;
    }
    case 'existing-file': {
      const path = join(dir, `file-${i}.txt`);
      writeFileSync(path, 'left alone\n');
      return path;
    }
  }
}

/** What a failed run must have left as it was: nothing new, nothing changed. */
function outputProblems(workspace: Workspace): string[] {
  const problems: string[] = [];
  for (const { path, output, before } of workspace.outputs) {
    if (output.shape === 'fresh' && existsSync(path) && !isEmptyDirectory(path)) {
      problems.push(`a failed run left ${path}`);
    }
    if (output.shape === 'missing-parent' && existsSync(join(workspace.dir, 'missing'))) {
      problems.push(`a failed run created ${join(workspace.dir, 'missing')}`);
    }
    if (output.shape === 'directory' && !isEmptyDirectory(path)) {
      problems.push(`a failed run wrote into ${path}`);
    }
    if (output.shape === 'existing-file' && readFileSync(path, 'utf8') !== before) {
      problems.push(`a failed run changed ${path}`);
    }
  }
  return problems;
}

function isEmptyDirectory(path: string): boolean {
  try {
    return readdirSync(path).length === 0;
  } catch {
    return false;
  }
}

/**
 * Runs one command line in-process in a fresh temporary directory (removed afterwards), with
 * `env` set for its duration. A `proxy` that starts is stopped as SIGTERM would stop it, by
 * calling the handler it registered, so a good config is a run that ends too.
 */
export async function runCase(cliCase: CliCase, env: CliEnvironment = {}): Promise<CliRun> {
  const workspace = prepare(cliCase.words);
  const saved = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  try {
    const result = await runStoppingProxy(workspace.argv);
    return { argv: workspace.argv, ...result, outputProblems: outputProblems(workspace) };
  } finally {
    for (const name of Object.keys(env)) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    rmSync(workspace.dir, { recursive: true, force: true });
  }
}

async function runStoppingProxy(argv: readonly string[]) {
  const before = new Set(process.listeners('SIGTERM'));
  let settled = false;
  const running = runCli(...argv).finally(() => {
    settled = true;
  });
  if (argv[0] === 'proxy') {
    while (!settled) {
      const stop = process.listeners('SIGTERM').find((listener) => !before.has(listener));
      if (stop !== undefined) {
        (stop as () => void)();
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
  return running;
}
