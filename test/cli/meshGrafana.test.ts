import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dashboard, RowPanel } from '@grafana/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'difftry-grafana-'));
  dirs.push(dir);
  return dir;
}

const HOTEL_CALLS = new URL('../../examples/hotel-calls.yaml', import.meta.url).pathname;

describe('difftry mesh grafana', () => {
  it('prints the dashboard JSON without --out', async () => {
    const { code, stdout, stderr } = await runCli('mesh', 'grafana', '--example', 'hotel');
    expect({ code, stderr }).toStrictEqual({ code: 0, stderr: '' });
    const dashboard = JSON.parse(stdout) as Dashboard;
    expect(dashboard.title).toBe('difftry — hotel');
    expect(dashboard.uid).toBe('difftry-hotel');
    expect(dashboard.panels?.map((row) => row.title)).toStrictEqual([
      'frontend',
      'search',
      'geo',
      'rate',
      'reservation',
      'profile',
      'recommendation',
      'user',
    ]);
  });

  it('writes the file with --out and says so on one line', async () => {
    const dir = await tempDir();
    const out = join(dir, 'hotel-calls.json');
    const { code, stdout, stderr } = await runCli('mesh', 'grafana', HOTEL_CALLS, '--out', out);
    expect({ code, stderr }).toStrictEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(
      `wrote ${out} (Grafana dashboard difftry-hotel-calls: 8 services, one row each)\n`,
    );
    const written = await readFile(out, 'utf8');
    const printed = await runCli('mesh', 'grafana', HOTEL_CALLS);
    expect(written).toBe(printed.stdout);
    expect((JSON.parse(written) as Dashboard).schemaVersion).toBeTypeOf('number');
  });

  it('takes --service-label and --expanded', async () => {
    const { code, stdout } = await runCli(
      'mesh',
      'grafana',
      '--example',
      'two-tier',
      '--service-label',
      'exported_service',
      '--expanded',
    );
    expect(code).toBe(0);
    const dashboard = JSON.parse(stdout) as Dashboard;
    const rows = (dashboard.panels ?? []).filter((p): p is RowPanel => p.type === 'row');
    expect(rows.every((row) => !row.collapsed && row.panels.length === 0)).toBe(true);
    expect(stdout).toContain('exported_service=\\"');
    expect(stdout).not.toContain('{service=');
  });

  it('names the dashboard after the file when the network has no name', async () => {
    const dir = await tempDir();
    const file = join(dir, 'Shop Net.yaml');
    await writeFile(
      file,
      'classes: [{ name: high, retries: 2 }]\nservices: [{ name: api, capacity: 10, queue: 5, arrivals: { high: 1 } }]\n',
    );
    const { code, stdout } = await runCli('mesh', 'grafana', file);
    expect(code).toBe(0);
    const dashboard = JSON.parse(stdout) as Dashboard;
    expect(dashboard.title).toBe('difftry — Shop Net');
    expect(dashboard.uid).toMatch(/^difftry-shop-net-[0-9a-f]{8}$/);
  });

  it('refuses a bad network file with one line on stderr and exit 2, writing nothing', async () => {
    const dir = await tempDir();
    const file = join(dir, 'bad.yaml');
    await writeFile(
      file,
      'classes: [{ name: high, retries: 2 }]\nservices: [{ name: api, capacity: -3, queue: 5, arrivals: { high: 1 } }]\n',
    );
    const out = join(dir, 'dashboard.json');
    const { code, stdout, stderr } = await runCli('mesh', 'grafana', file, '--out', out);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.endsWith('\n')).toBe(true);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^difftry: .*bad\.yaml:2:.*services\[0\]\.capacity/);
    expect(await readdir(dir)).toStrictEqual(['bad.yaml']);
  });

  it('refuses a missing file, a bad --service-label and an unwritable --out with exit 2', async () => {
    const dir = await tempDir();
    const cases = [
      ['mesh', 'grafana', join(dir, 'missing.yaml')],
      ['mesh', 'grafana', '--example', 'hotel', '--service-label', 'service-name'],
      ['mesh', 'grafana', '--example', 'hotel', '--out', join(dir, 'no', 'such', 'dir.json')],
      ['mesh', 'grafana'],
    ];
    for (const argv of cases) {
      const { code, stdout, stderr } = await runCli(...argv);
      expect({ code, stdout }, argv.join(' ')).toStrictEqual({ code: 2, stdout: '' });
      expect(stderr.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });
});
