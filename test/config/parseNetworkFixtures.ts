import { expect, it } from 'vitest';
import { isSpecError, parseNetwork, type SpecError } from '../../src/config/index.js';

// Shared by the parseNetwork*.test.ts files, one per part of the network file format.

/** Two classes and the given `services:` block, so that service lines start at line 5. */
export const withServices = (services: string): string =>
  [
    'classes:',
    '  - { name: high, retries: 5 }',
    '  - { name: low, retries: 1 }',
    'services:',
    services,
  ]
    .join('\n')
    .concat('\n');

/** The SpecError that parsing `text` throws; fails the test if it parses. */
export function specErrorOf(text: string, fileName = 'net.yaml'): SpecError {
  try {
    parseNetwork(text, fileName);
  } catch (error) {
    if (isSpecError(error)) return error;
    throw error;
  }
  throw new Error(`expected a SpecError, but this parsed:\n${text}`);
}

/** A bad input: the text, then the exact message. Line and column are 1-based. */
export interface BadInput {
  name: string;
  text: string;
  message: string;
  path: string;
  line?: number;
}

/**
 * One test per case, named by it: parsing the text throws a SpecError with exactly the message, on
 * one line, naming the path, the line and the file.
 */
export function eachGivesOneClearLine(cases: readonly BadInput[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const error = specErrorOf(c.text);
      expect(error.message, `input:\n${c.text}`).toBe(c.message);
      expect(error.message).not.toContain('\n');
      expect(error.path).toBe(c.path);
      expect(error.line).toBe(c.line);
      expect(error.file).toBe('net.yaml');
      expect(error.issues[0]?.message).toBe(error.message);
    });
  }
}
