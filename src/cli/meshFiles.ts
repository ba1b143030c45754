/** A service name as a file name: characters outside `[A-Za-z0-9._-]` become `_`. */
export function fileStem(service: string): string {
  const stem = service.replace(/[^A-Za-z0-9._-]/g, '_');
  return stem === '.' || stem === '..' ? `_${stem}` : stem;
}

/** How a generated file names the command that made it: `difftry mesh envoy net.yaml`. */
export function generatedBy(command: string, source: { file?: string; example?: string }): string {
  const input = source.file ?? (source.example !== undefined ? `--example ${source.example}` : '');
  return `difftry mesh ${command} ${input}`.trim();
}
