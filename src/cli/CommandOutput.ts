/**
 * What a command prints: stdout text, an optional line for stderr, and its exit code. Every
 * command returns one; `program.ts` writes it (so a command itself never writes to the streams
 * and can be tested by its value).
 */
export interface CommandOutput {
  readonly stdout: string;
  readonly stderr?: string;
  /** Exit code; 0 when omitted. */
  readonly exitCode?: number;
}

/** Prints a command's output and keeps its exit code for `main` (every command gets the CLI's). */
export type Emit = (output: CommandOutput) => void;
