import { EXIT_BAD_INPUT } from './program.js';

/**
 * Makes a failed write to standard output or error one line and exit 2, instead of an unhandled
 * `'error'` event with a stack trace: a closed pipe (`difftry … | head`, EPIPE) or a full device
 * (ENOSPC). Installed once by the CLI's entry point.
 * @example
 * ```ts
 * exitOnOutputErrors(process);
 * ```
 */
export function exitOnOutputErrors(target: {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  exit(code: number): never;
}): void {
  const fail = (stream: string) => (error: NodeJS.ErrnoException) => {
    const reason = error.code === 'EPIPE' ? 'closed by its reader' : (error.code ?? error.message);
    // Standard error may be the broken one: say it once, if it can still be said.
    if (stream === 'output') {
      try {
        target.stderr.write(`difftry: cannot write to standard output: ${reason}\n`);
      } catch {
        // Nothing more to say anywhere.
      }
    }
    target.exit(EXIT_BAD_INPUT);
  };
  target.stdout.on('error', fail('output'));
  target.stderr.on('error', fail('error'));
}
