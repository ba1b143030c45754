import { stringify } from 'yaml';
import { checkOutputDirectory, makeOutputDirectory, writeOutputFiles } from './outputPath.js';
import { UsageError } from './UsageError.js';

/** A service name as a file name: characters outside `[A-Za-z0-9._-]` become `_`. */
export function fileStem(service: string): string {
  const stem = service.replace(/[^A-Za-z0-9._-]/g, '_');
  return stem === '.' || stem === '..' ? `_${stem}` : stem;
}

/** How a generated file names the command that made it: `difftry mesh envoy net.yaml`. */
export function generatedBy(
  command: string,
  source: { file?: string; example?: string },
  flags: readonly string[] = [],
): string {
  const input = source.file ?? (source.example !== undefined ? `--example ${source.example}` : '');
  return [`difftry mesh ${command}`, input, ...flags].filter((part) => part !== '').join(' ');
}

/** One file a `difftry mesh` command writes, and the service it is for. */
export interface GeneratedFile {
  readonly path: string;
  readonly text: string;
  /** The service it configures (for the report and the name-clash check). */
  readonly service: string;
  /** What it holds, for the report: `Envoy of frontend`. */
  readonly what: string;
}

/**
 * Writes a `difftry mesh` command's files into `out` (created if missing), after checking
 * that no two services would share a file and that `out` is usable; nothing is written
 * when a check fails.
 * @returns the report to print: one line per file, or with `json` `{ "files": [...] }`.
 */
export async function writeGeneratedFiles(
  files: readonly GeneratedFile[],
  out: string,
  json: boolean | undefined,
): Promise<string> {
  const seen = new Map<string, string>();
  for (const file of files) {
    const other = seen.get(file.path);
    if (other !== undefined && other !== file.service) {
      throw new UsageError(
        `services "${other}" and "${file.service}" would both be written to ${file.path}`,
      );
    }
    seen.set(file.path, file.service);
  }
  await checkOutputDirectory(out, '--out');
  await makeOutputDirectory(out, '--out');
  await writeOutputFiles(
    files.map(({ path, text }) => ({ path, text })),
    '--out',
  );
  if (json) return JSON.stringify({ files: files.map((f) => f.path) }, null, 2);
  return files.map((f) => `wrote ${f.path} (${f.what})`).join('\n');
}

/**
 * Kubernetes objects as one YAML stream: comment lines first (each gets `# `), then the
 * documents separated by `---`.
 */
export function yamlStream(comments: readonly string[], documents: readonly unknown[]): string {
  const head = comments.map((line) => (line === '' ? '#' : `# ${line}`)).join('\n');
  return `${head}\n${documents.map((doc) => stringify(doc)).join('---\n')}`;
}

/** The namespace a Kubernetes-facing command writes into (an RFC 1123 label), `default` if none. */
export function checkNamespace(namespace: string | undefined): string {
  if (namespace === undefined) return 'default';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace) || namespace.length > 63) {
    throw new UsageError(
      `--namespace: expected a Kubernetes namespace (lower-case letters, digits and '-', at most 63), got "${namespace}"`,
    );
  }
  return namespace;
}
