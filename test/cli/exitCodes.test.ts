import { afterAll, describe, expect, it, vi } from 'vitest';

// An exception that is not difftry's own is a bug: exit 70 with the stack, never the exit 1 that
// means "the answer is no".
vi.mock('../../src/model/network/analyzeNetwork.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/model/network/analyzeNetwork.js')>()),
  analyzeNetwork: () => {
    throw new TypeError('a bug');
  },
}));

// The integration project shares its workers' modules (`isolate: false`): the CLI is imported
// afresh here, so that it sees the mock, and the mock is undone for the files that follow.
vi.resetModules();
afterAll(() => {
  vi.doUnmock('../../src/model/network/analyzeNetwork.js');
  vi.resetModules();
});

const { main } = await import('../../src/cli/program.js');
const { EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_NEGATIVE } = await import('../../src/cli/exitCodes.js');

describe('CLI exit codes', () => {
  it('are distinct for a negative answer, bad input and an internal error', () => {
    expect(new Set([EXIT_NEGATIVE, EXIT_BAD_INPUT, EXIT_INTERNAL]).size).toBe(3);
  });

  it('exits 70 with the stack trace on an internal error', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['analyze', '--example', 'hotel'])).toBe(EXIT_INTERNAL);
      const written = stderr.mock.calls.map((call) => String(call[0])).join('');
      expect(written).toMatch(/^difftry: internal error: TypeError: a bug\n\s+at /);
    } finally {
      stderr.mockRestore();
    }
  });
});
