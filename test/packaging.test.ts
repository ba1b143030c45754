import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The files `npm pack` would put in the package (no scripts run; dist/ as it stands). */
function packedFiles(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [pack] = JSON.parse(out) as [{ files: { path: string }[] }];
  return pack.files.map((f) => f.path);
}

describe('the package', () => {
  it('ships the docs the README and the CLI help link to, and no tests', () => {
    const files = packedFiles();
    for (const doc of ['docs/model.md', 'docs/mesh.md', 'docs/testbed.md', 'docs/validation.md']) {
      expect(files).toContain(doc);
    }
    expect(files.filter((f) => /\.test\.ts$/.test(f))).toEqual([]);
    expect(files).toContain('examples/hotel.yaml');
  });

  it('builds no source maps pointing at a src/ it does not ship', () => {
    const build = JSON.parse(
      readFileSync(new URL('../tsconfig.build.json', import.meta.url), 'utf8'),
    );
    expect(build.compilerOptions.sourceMap).toBe(false);
    expect(build.compilerOptions.declarationMap).toBe(false);
    expect(packedFiles().filter((f) => f.startsWith('src/'))).toEqual([]);
  });
});
