import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtinExample } from '../../src/config/examples.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { kubernetesManifest } from '../../src/deploy/kubernetes.js';

// The sidecar's image, checked without a container engine: the Dockerfile read by a small parser
// of its own, and what it names held against the repository (the files it copies, the build it
// runs, the user and ports the generated Kubernetes manifests expect).

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}
interface Stage {
  readonly image: string;
  readonly name: string | undefined;
  readonly instructions: Instruction[];
}

/** Dockerfile instructions by stage: comments and blank lines dropped, `\` continuations joined. */
function parseDockerfile(text: string): Stage[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    lines.push(pending + line);
    pending = '';
  }
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args };
    if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = args.split(/\s+/);
      stages.push({
        image,
        name: as?.toUpperCase() === 'AS' ? name : undefined,
        instructions: [],
      });
    } else {
      const stage = stages.at(-1);
      if (stage === undefined) throw new Error(`${keyword} before any FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

/** A COPY's flags, sources and destination (shell form only, as this Dockerfile writes them). */
function parseCopy(args: string) {
  const words = args.split(/\s+/);
  const flags = new Map(
    words
      .filter((w) => w.startsWith('--'))
      .map((w) => w.slice(2).split('=') as [string, string | undefined]),
  );
  const paths = words.filter((w) => !w.startsWith('--'));
  return { from: flags.get('from'), sources: paths.slice(0, -1), destination: paths.at(-1) ?? '' };
}

/** Whether a .dockerignore pattern (no `!`, `*` within a segment, `**` across) takes `path`. */
function ignored(patterns: readonly string[], path: string): boolean {
  return patterns.some((pattern) => {
    const regex = pattern
      .replace(/[.+^${}()|[\]]/g, '\\$&')
      .replace(/\*\*\//g, '(.*/)?')
      .replace(/\*/g, '[^/]*');
    return new RegExp(`^${regex}(/.*)?$`).test(path);
  });
}

/** The context files a COPY source names (`examples/*.yaml`: one level of `*`). */
function contextFiles(source: string): string[] {
  if (!source.includes('*')) return existsSync(new URL(source, root)) ? [source] : [];
  const slash = source.lastIndexOf('/');
  const dir = source.slice(0, slash);
  const pattern = new RegExp(
    `^${source
      .slice(slash + 1)
      .replace(/\./g, '\\.')
      .replace(/\*/g, '.*')}$`,
  );
  return readdirSync(new URL(`${dir}/`, root))
    .filter((name) => pattern.test(name))
    .map((name) => `${dir}/${name}`);
}

/**
 * The absolute paths a stage has made: what it copied in (a directory destination keeps each
 * source's name), `node_modules` if it ran `npm ci`, `dist` if it ran `npm run build`.
 */
function stageContents(stage: Stage): string[] {
  const workdir = last(stage, 'WORKDIR') ?? '/';
  const absolute = (path: string) =>
    path.startsWith('/') ? path : `${workdir}/${path.replace(/^\.\/?/, '')}`.replace(/\/+$/, '');
  const paths: string[] = [];
  for (const instruction of stage.instructions) {
    if (instruction.keyword === 'COPY') {
      const { sources, destination } = parseCopy(instruction.args);
      const intoDirectory = destination.endsWith('/') || sources.length > 1;
      for (const source of sources) {
        paths.push(
          absolute(intoDirectory ? `${destination}${source.split('/').at(-1)}` : destination),
        );
      }
    }
    if (instruction.keyword === 'RUN') {
      if (/\bnpm ci\b/.test(instruction.args)) paths.push(absolute('node_modules'));
      if (/\bnpm run build\b/.test(instruction.args)) paths.push(absolute('dist'));
    }
  }
  return paths;
}

const stages = parseDockerfile(read('Dockerfile'));
const final = stages.at(-1) as Stage;
const last = (stage: Stage, keyword: string) =>
  stage.instructions.filter((i) => i.keyword === keyword).at(-1)?.args;

describe('the Dockerfile of the sidecar image', () => {
  it('builds in one stage and runs from another, on the Node the package supports', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const engines = JSON.parse(read('package.json')).engines.node as string;
    const major = /\d+/.exec(engines)?.[0] as string;
    for (const stage of stages) expect(stage.image).toMatch(new RegExp(`^node:${major}-`));
    const build = stages[0] as Stage;
    const runs = build.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs.some((r) => /\bnpm ci\b/.test(r))).toBe(true);
    expect(runs.some((r) => /\bnpm run build\b/.test(r))).toBe(true);
    expect(runs.some((r) => /\bnpm prune --omit=dev\b/.test(r))).toBe(true);
    // The final stage installs and builds nothing: it only copies.
    expect(final.instructions.filter((i) => i.keyword === 'RUN')).toEqual([]);
  });

  it('runs as a non-root user, the one the generated pods name', () => {
    const user = last(final, 'USER');
    expect(user).toBeDefined();
    const [uid = '', gid] = (user as string).split(':');
    expect(['root', '0']).not.toContain(uid);
    expect(gid).not.toBe('0');
    const { text, fileName } = builtinExample('single');
    const deployment = kubernetesManifest(parseNetwork(text, fileName), {
      appImage: 'app',
      proxyImage: 'difftry/proxy:test',
    }).objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { template: { spec: { containers: { securityContext?: { runAsUser?: number } }[] } } };
    };
    const runAsUser = deployment.spec.template.spec.containers.at(-1)?.securityContext?.runAsUser;
    expect(String(runAsUser)).toBe(uid);
  });

  it('starts the CLI the package’s bin names, from the built dist/', () => {
    const workdir = last(final, 'WORKDIR') as string;
    const entrypoint = JSON.parse(last(final, 'ENTRYPOINT') as string) as string[];
    const bin = JSON.parse(read('package.json')).bin.difftry as string;
    expect(entrypoint).toEqual(['node', `${workdir}/${bin}`]);
    expect(bin).toBe('dist/cli/main.js');
    // dist/ is tsc's output of src/: tsconfig.build.json's outDir, and src/cli/main.ts exists.
    const build = JSON.parse(read('tsconfig.build.json')).compilerOptions;
    expect([build.rootDir, build.outDir]).toEqual(['src', 'dist']);
    expect(existsSync(new URL('src/cli/main.ts', root))).toBe(true);
    expect(JSON.parse(last(final, 'CMD') as string)[0]).toBe('proxy');
  });

  it('copies only from earlier stages, what they made, and context files that exist and are not ignored', () => {
    const dockerignore = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    expect(dockerignore.some((p) => p.startsWith('!'))).toBe(false);
    for (const [index, stage] of stages.entries()) {
      const earlier = stages.slice(0, index);
      for (const copy of stage.instructions.filter((i) => i.keyword === 'COPY')) {
        const { from, sources, destination } = parseCopy(copy.args);
        expect(destination).not.toBe('');
        if (from !== undefined) {
          const source = earlier.find((s) => s.name === from);
          expect(source, `COPY --from=${from}`).toBeDefined();
          const made = stageContents(source as Stage);
          for (const path of sources) expect(made, `COPY --from=${from} ${path}`).toContain(path);
        } else {
          for (const source of sources) {
            const files = contextFiles(source);
            expect(files.length, `COPY ${source}`).toBeGreaterThan(0);
            for (const file of files) expect(ignored(dockerignore, file), file).toBe(false);
          }
        }
      }
    }
    // The context stays small: no dependencies, build output or VCS data go in.
    for (const path of ['node_modules', 'dist', '.git', 'test/config/x.test.ts', 'src/a.test.ts']) {
      expect(ignored(dockerignore, path), path).toBe(true);
    }
  });

  it('exposes the ports the generated pods use', () => {
    const exposed = final.instructions
      .filter((i) => i.keyword === 'EXPOSE')
      .flatMap((i) => i.args.split(/\s+/).map(Number));
    expect(exposed).toEqual(expect.arrayContaining([15_006, 15_001, 15_020]));
  });
});
