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
      readFileSync(new URL('../../tsconfig.build.json', import.meta.url), 'utf8'),
    );
    expect(build.compilerOptions.sourceMap).toBe(false);
    expect(build.compilerOptions.declarationMap).toBe(false);
    expect(packedFiles().filter((f) => f.startsWith('src/'))).toEqual([]);
  });

  it('names as side-effectful exactly the modules that run code when loaded', () => {
    // Bundlers drop an unused module of a package with `sideEffects` unless it is listed; a module
    // that does work at its top level (the CLI, the workers) must be, and nothing else need be.
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const listed = (pkg.sideEffects as string[]).map((f) =>
      f.replace('./dist/', 'src/').replace(/\.js$/, '.ts'),
    );
    const topLevelCode = /^(?:if \(|for \(|while \(|await |[A-Za-z_$][\w$.]*\()/m;
    const files = execFileSync('git', ['ls-files', 'src/*.ts', 'src/**/*.ts'], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    const running = files.filter((f) => topLevelCode.test(readFileSync(f, 'utf8')));
    expect(running.sort()).toStrictEqual([...listed].sort());
  });
});
