import { readdirSync } from 'node:fs';
import { matchesGlob } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';

// Every test file runs in exactly one vitest project: one in none is never run by `npm test`, one
// in both runs twice, under two timeouts. vitest picks a project's files by its `include` globs
// less its `exclude` ones, relative to the root; the same globs are matched here.

interface Project {
  readonly name: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

/** The inline projects of vitest.config.ts, with their globs. */
function projects(): Project[] {
  const listed = config.test?.projects ?? [];
  return listed.map((project) => {
    if (typeof project !== 'object' || project instanceof Promise || !('test' in project)) {
      throw new Error('vitest.config.ts: every project is expected inline, with its own `test`');
    }
    const { name, include, exclude } = project.test ?? {};
    if (typeof name !== 'string' || include === undefined || exclude === undefined) {
      throw new Error(
        'vitest.config.ts: every project is expected to name its include and exclude',
      );
    }
    return { name, include, exclude };
  });
}

const SKIPPED = new Set(['node_modules', '.git', 'dist']);

/** Every `*.test.ts` of the repository (outside node_modules, .git and dist), relative paths. */
function testFiles(dir = '.'): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = dir === '.' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) found.push(...testFiles(path));
    } else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found.sort();
}

function inProject(file: string, project: Project): boolean {
  const matches = (globs: readonly string[]) => globs.some((glob) => matchesGlob(file, glob));
  return matches(project.include) && !matches(project.exclude);
}

describe('vitest projects', () => {
  const all = projects();

  it('are unit, integration and browser', () => {
    expect(all.map((p) => p.name)).toEqual(['unit', 'integration', 'browser']);
  });

  it('take every test file, each in exactly one project', () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    const misplaced = files
      .map((file) => ({ file, in: all.filter((p) => inProject(file, p)).map((p) => p.name) }))
      .filter((placed) => placed.in.length !== 1);
    expect(misplaced, 'place each test file in one project of vitest.config.ts').toEqual([]);
  });

  it('name no file that does not exist (a renamed test would drop out of its list)', () => {
    const files = testFiles();
    const stale = all.flatMap((project) =>
      project.include
        .filter((glob) => !files.some((file) => matchesGlob(file, glob)))
        .filter((glob) => !glob.startsWith('test/policy/retry/conformance/'))
        .map((glob) => `${project.name}: ${glob}`),
    );
    expect(stale, 'drop or fix these entries of vitest.config.ts').toEqual([]);
  });

  it('put this check in the unit project', () => {
    const unit = all.find((p) => p.name === 'unit') as Project;
    expect(inProject('test/package/projects.test.ts', unit)).toBe(true);
  });
});
