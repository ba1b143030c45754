import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { meshSidecarsCommand, registerMeshCommand } from '../../src/cli/meshCommand.js';
import { proxyCommand, registerProxyCommand } from '../../src/cli/proxyCommand.js';
import { isUsageError } from '../../src/cli/UsageError.js';
import { parseSidecarConfig } from '../../src/config/parseSidecarConfig.js';
import { isSpecError } from '../../src/config/SpecError.js';
import { reply, startServer } from '../runtime/loopback.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'difftry-mesh-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

/** A fresh program with the two commands, parsing `argv`; returns what it printed. */
async function run(...argv: string[]): Promise<string> {
  const program = new Command('difftry').exitOverride();
  registerProxyCommand(program);
  registerMeshCommand(program);
  let stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } finally {
    vi.restoreAllMocks();
  }
  return stdout;
}

describe('difftry proxy', { timeout: 15_000 }, () => {
  it('prints one line per listener, serves, and shuts down when stopped', async () => {
    const app = await startServer((_req, res) => reply(res, 200, 'hello'));
    try {
      const file = join(dir, 'sidecar.yaml');
      await writeFile(
        file,
        [
          'service: frontend',
          'classes: [{ name: high, retries: 1 }, { name: low, retries: 0 }]',
          `inbound: { listen: 127.0.0.1:0, app: "${new URL(app.url).origin}", capacity: 5 }`,
          `outbound: { listen: 127.0.0.1:0, upstreams: [{ name: app, url: "${new URL(app.url).origin}" }] }`,
        ].join('\n'),
      );
      const lines: string[] = [];
      const notes: string[] = [];
      const stop = new AbortController();
      const running = proxyCommand({
        config: file,
        stop: stop.signal,
        write: (line) => lines.push(line),
        warn: (line) => notes.push(line),
      });
      while (lines.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(lines[0]).toMatch(
        /^difftry proxy: frontend inbound http:\/\/127\.0\.0\.1:\d+ → app http:\/\/127\.0\.0\.1:\d+ \(c = 1, m = 5\)$/,
      );
      expect(lines[1]).toMatch(
        /^difftry proxy: frontend outbound http:\/\/127\.0\.0\.1:\d+ → app$/,
      );
      expect(lines[2]).toMatch(/^difftry proxy: frontend metrics http:\/\/.*\/metrics, health /);
      const inbound = /inbound (\S+)/.exec(lines[0] as string)?.[1] as string;
      const res = await request(`${inbound}/x`, { signal: AbortSignal.timeout(5000) });
      expect(await res.body.text()).toBe('hello');
      stop.abort();
      await running;
      expect(notes).toStrictEqual([
        'difftry proxy: shutting down, draining requests in flight for up to 10000 ms',
      ]);
    } finally {
      await app.close();
    }
  });

  it('fails with one line naming the file and place for a bad config', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(
      file,
      'service: a\nclasses: [{ name: h, retries: 1 }]\ninbound: { listen: 0 }\n',
    );
    const error = await run('proxy', '--config', file).catch((e: unknown) => e);
    expect(isSpecError(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${file}:3:10: inbound.app: missing field: expected app (an http:// or https:// URL without credentials, query or fragment)`,
    );
  });

  it('fails with one line when a port is taken', async () => {
    const app = await startServer();
    try {
      const port = new URL(app.url).port;
      const file = join(dir, 'taken.yaml');
      await writeFile(
        file,
        `service: a\nclasses: [{ name: h, retries: 1 }]\ninbound: { listen: "127.0.0.1:${port}", app: "http://127.0.0.1:1", capacity: 1 }\n`,
      );
      const error = await proxyCommand({ config: file, stop: AbortSignal.abort() }).catch(
        (e: unknown) => e,
      );
      expect(isUsageError(error)).toBe(true);
      expect((error as Error).message).toMatch(/taken\.yaml: cannot listen: .*EADDRINUSE/);
    } finally {
      await app.close();
    }
  });
});

describe('difftry mesh sidecars', () => {
  it('writes one YAML file per service of hotel-calls, each a valid config', async () => {
    const out = join(dir, 'sidecars');
    const stdout = await run('mesh', 'sidecars', '--example', 'hotel-calls', '--out', out);
    const files = (await readdir(out)).sort();
    expect(files).toStrictEqual(
      ['frontend', 'geo', 'profile', 'rate', 'recommendation', 'reservation', 'search', 'user'].map(
        (name) => `${name}.yaml`,
      ),
    );
    expect(stdout.trim().split('\n')).toHaveLength(8);
    expect(stdout).toContain(`wrote ${join(out, 'frontend.yaml')} (sidecar of frontend)`);
    for (const file of files) {
      const config = parseSidecarConfig(await readFile(join(out, file), 'utf8'), file);
      expect(`${config.service}.yaml`).toBe(file);
    }
  });

  it('prints one JSON document with --json', async () => {
    const stdout = await run(
      'mesh',
      'sidecars',
      '--example',
      'hotel',
      '--json',
      '--base-port',
      '20000',
    );
    const { sidecars } = JSON.parse(stdout) as {
      sidecars: Record<string, { inbound: { listen: string } }>;
    };
    expect(Object.keys(sidecars)).toHaveLength(8);
    expect(sidecars.frontend?.inbound.listen).toBe('127.0.0.1:20000');
  });

  it('prints YAML documents separated by --- without --out', async () => {
    const text = await meshSidecarsCommand({ example: 'two-tier' });
    const documents = text.split(/^---$/m);
    expect(documents).toHaveLength(3);
    expect(() => parseSidecarConfig(documents[0] as string, 'first')).not.toThrow();
  });

  it('refuses ports that do not fit, writing nothing', async () => {
    const out = join(dir, 'none');
    const error = await meshSidecarsCommand({
      example: 'hotel-calls',
      basePort: 65_530,
      out,
    }).catch((e: unknown) => e);
    expect(isUsageError(error)).toBe(true);
    await expect(readdir(out)).rejects.toThrow();
  });
});
