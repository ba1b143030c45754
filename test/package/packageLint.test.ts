import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The package as npm would publish it, checked by the tools made for it.
// publint reads the packed files against package.json (exports, files, bin, types); attw
// (arethetypeswrong) resolves every entry's types as TypeScript does under node16 and bundler
// resolution. The package is ESM only, so CommonJS `require` and node10 resolution are out of
// scope (`--profile esm-only`). dist/ is built first: a fresh clone has none.

const BUILD_TIMEOUT_MS = 120_000;
let packDir = '';
let tarball = '';

beforeAll(() => {
  execFileSync('npm', ['run', 'build'], { stdio: 'ignore' });
  packDir = mkdtempSync(join(tmpdir(), 'difftry-pack-'));
  const out = execFileSync(
    'npm',
    ['pack', '--pack-destination', packDir, '--ignore-scripts', '--json'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const [pack] = JSON.parse(out) as [{ filename: string }];
  tarball = join(packDir, pack.filename);
}, BUILD_TIMEOUT_MS);

afterAll(() => {
  if (packDir !== '') rmSync(packDir, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('passes publint, suggestions included', async () => {
    const { messages, pkg } = await publint({ pkgDir: '.', level: 'suggestion', pack: 'npm' });
    expect(messages.map((m) => formatMessage(m, pkg) ?? m.code)).toStrictEqual([]);
  });

  it('has types every entry resolves to under node16 and bundlers (attw)', () => {
    const out = execFileSync(
      'npx',
      ['attw', tarball, '--profile', 'esm-only', '--format', 'json', '--no-color'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // attw exits non-zero (execFileSync throws) on a problem its profile counts; its JSON lists
    // every problem, those of the resolutions the profile ignores too.
    const report = JSON.parse(out) as {
      analysis: { entrypoints: Record<string, unknown> };
      problems?: Record<string, { entrypoint: string; resolutionKind?: string }[]>;
    };
    const ignored = new Set(['node10', 'node16-cjs']);
    const counted = Object.values(report.problems ?? {})
      .flat()
      .filter((p) => p.resolutionKind === undefined || !ignored.has(p.resolutionKind));
    expect(Object.keys(report.analysis.entrypoints).sort()).toStrictEqual([
      '.',
      './config',
      './deploy',
      './experiments',
      './grpc',
      './mesh',
      './model',
      './package.json',
      './report',
      './sim',
      './spec',
      './ui',
      './xds',
    ]);
    expect(counted).toStrictEqual([]);
  });

  it('keeps difftry/spec as an alias of difftry/config, its earlier name', async () => {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile('package.json', 'utf8'));
    expect(pkg.exports['./spec']).toStrictEqual(pkg.exports['./config']);
  });
});
