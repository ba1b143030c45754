import { execFile } from 'node:child_process';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_FILE_BYTES, readInputFile } from '../../src/config/readInputFile.js';
import { runCli } from './runCli.js';

// Hardening, round three, §5: every CLI error is one line with the names in it escaped; class
// names are checked once, in the schema, with one message; input files are bounded and devices
// that never end are refused. Each case runs the real CLI (`main`), as a user would.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'difftry-one-line-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A network whose first class has the given name (a called service, so every mesh writes it). */
function networkWithClass(name: string): string {
  return JSON.stringify({
    classes: [
      { name, retries: 2 },
      { name: 'low', retries: 0 },
    ],
    services: [
      {
        name: 'front',
        capacity: 100,
        queue: 10,
        arrivals: { [name]: 10, low: 5 },
        calls: [{ to: 'back' }],
      },
      { name: 'back', capacity: 100, queue: 10 },
    ],
  });
}

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

/** The run printed nothing on stdout and exactly one line on stderr, and exited 2. */
function expectOneLineError(run: { code: number; stdout: string; stderr: string }): string {
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.endsWith('\n')).toBe(true);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: no line break or escape may pass
  expect(run.stderr.slice(0, -1)).not.toMatch(/[\n\r\u2028\u2029\u001b]/);
  return run.stderr;
}

const CLASS_MESSAGE =
  "classes[0].name: expected a class name: an HTTP token (letters, digits and !#$%&'*+-.^_`|~), which every HTTP header and gRPC metadata value can carry";

describe('class names: one rule, in the schema, the same message everywhere', () => {
  const outDir = () => join(dir, 'out');
  const commands: readonly (readonly [string, (path: string) => string[]])[] = [
    ['analyze', (path) => ['analyze', path]],
    ['mesh envoy', (path) => ['mesh', 'envoy', path]],
    ['mesh istio', (path) => ['mesh', 'istio', path]],
    ['mesh linkerd', (path) => ['mesh', 'linkerd', path]],
    ['mesh gateway-api', (path) => ['mesh', 'gateway-api', path]],
    ['mesh sidecars', (path) => ['mesh', 'sidecars', path, '--out', outDir()]],
    ['mesh k8s', (path) => ['mesh', 'k8s', path, '--app-image', 'img/{service}:1']],
  ];
  for (const name of ['gold star', 'gold\nclass', 'göld', 'a"b', 'a,b', '']) {
    for (const [label, argv] of commands) {
      it(`${label} refuses the class ${JSON.stringify(name)} in one line`, async () => {
        const path = await file('class.json', networkWithClass(name));
        const stderr = expectOneLineError(await runCli(...argv(path)));
        expect(stderr).toContain(CLASS_MESSAGE);
      });
    }
  }

  it('a sidecar config refuses it with the same message', async () => {
    const path = await file(
      'sidecar.json',
      JSON.stringify({
        service: 'front',
        classes: [
          { name: 'gold star', retries: 1 },
          { name: 'low', retries: 0 },
        ],
        inbound: { listen: '127.0.0.1:0', app: 'http://127.0.0.1:1', concurrency: 1, capacity: 4 },
      }),
    );
    const stderr = expectOneLineError(await runCli('proxy', '--config', path));
    expect(stderr).toContain(CLASS_MESSAGE);
  });

  it('every token character still works as a class name', async () => {
    const path = await file('token.json', networkWithClass("Gold.1_~!#$%&'*+-^`|"));
    const run = await runCli('mesh', 'envoy', path, '--json');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});

describe('one line, names escaped', () => {
  it('mesh k8s --app-image with a line break', async () => {
    const net = await file('net.json', networkWithClass('high'));
    const stderr = expectOneLineError(
      await runCli('mesh', 'k8s', net, '--app-image', 'a\nb{service}'),
    );
    expect(stderr).toContain('got "a\\nb{service}"');
  });

  it('a file name with a line break and an ANSI escape', async () => {
    const stderr = expectOneLineError(await runCli('analyze', join(dir, 'no\nsuch\u001b[2J.yaml')));
    expect(stderr).toContain('no\\nsuch\\x1b[2J.yaml');
    expect(stderr).toContain('no such file');
  });

  it('an option value with a line break (commander’s own message)', async () => {
    const net = await file('net2.json', networkWithClass('high'));
    expectOneLineError(await runCli('simulate', net, '--duration', '1\n2'));
  });
});

describe('bounded input files', () => {
  it('analyze /dev/zero is refused at once: a device that never ends', async () => {
    const stderr = expectOneLineError(await runCli('analyze', '/dev/zero'));
    expect(stderr).toBe(
      'difftry: /dev/zero: cannot read the file: it is a character device, not a regular file or a pipe\n',
    );
  });

  it('timeouts fit /dev/zero too', async () => {
    const stderr = expectOneLineError(await runCli('timeouts', 'fit', '/dev/zero'));
    expect(stderr).toContain('it is a character device, not a regular file or a pipe');
  });

  it('a file over 64 MiB is refused before it is read, naming the cap', async () => {
    const path = join(dir, 'huge.yaml');
    await writeFile(path, '');
    await truncate(path, MAX_INPUT_FILE_BYTES + 1); // sparse: no 64 MiB written to disk
    const stderr = expectOneLineError(await runCli('analyze', path));
    expect(stderr).toContain(
      'cannot read the file: it is 64.0 MiB, larger than 64 MiB, the most difftry reads',
    );
  });

  it('a pipe is read until it ends, and refused past the cap', async () => {
    const fifo = join(dir, 'pipe');
    await promisify(execFile)('mkfifo', [fifo]);
    const feed = (text: string) =>
      new Promise<void>((resolve, reject) => {
        // A writer in another process, as `<(…)` would be.
        execFile('sh', ['-c', `printf '%s' "$1" > "$2"`, 'sh', text, fifo], (error) =>
          error ? reject(error) : resolve(),
        );
      });
    const [read] = await Promise.all([
      readInputFile(fifo, { maxBytes: 100 }),
      feed('x'.repeat(100)),
    ]);
    expect(read).toBe('x'.repeat(100));
    const [refused] = await Promise.all([
      readInputFile(fifo, { maxBytes: 100 }).catch((error: unknown) => error),
      feed('x'.repeat(101)).catch(() => undefined), // the reader may close first: EPIPE
    ]);
    expect(refused).toMatchObject({
      code: 'E2BIG',
      message: 'it is larger than 100 bytes, the most difftry reads',
    });
  });

  it('a directory and a missing file keep their short reasons', async () => {
    expect(expectOneLineError(await runCli('analyze', dir))).toContain('it is a directory');
    expect(await readInputFile(join(dir, 'none')).catch((e: unknown) => e)).toMatchObject({
      code: 'ENOENT',
      message: 'no such file',
    });
  });
});
