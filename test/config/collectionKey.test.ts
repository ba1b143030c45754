import { afterEach, describe, expect, it, vi } from 'vitest';
import { isSpecError, parseNetwork } from '../../src/config/index.js';
import { parseSidecarConfig } from '../../src/config/parseSidecarConfig.js';

// Found by the CLI fuzzing (test/fuzz): a YAML key that is itself a list or a mapping made the
// yaml library print a Node warning on stderr ("Keys with collection values will be
// stringified…", and a "--trace-warnings" hint) besides the one-line error: three lines where
// the CLI promises one. Such a key is refused by name, with its place, before any conversion.

afterEach(() => {
  vi.restoreAllMocks();
});

/** The message of the SpecError `parse` throws, and the warnings emitted meanwhile. */
function refusal(parse: () => unknown): { message: string; warnings: number } {
  const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
  try {
    parse();
  } catch (error) {
    if (!isSpecError(error)) throw error;
    return { message: error.message, warnings: emitWarning.mock.calls.length };
  }
  throw new Error('expected a SpecError');
}

describe('a key that is a list or a mapping', () => {
  it.each([
    ['? [a]\n: 1\n', 'net.yaml:1:3: expected a plain key (a name), got a list as a key'],
    ['classes: {[a]: 1}\n', 'net.yaml:1:11: expected a plain key (a name), got a list as a key'],
    ['x: &a [1]\n*a : 2\n', 'net.yaml:2:1: expected a plain key (a name), got a list as a key'],
    ['{ {a: 1}: 2 }\n', 'net.yaml:1:3: expected a plain key (a name), got a mapping as a key'],
  ])('network %j: one line, no warning', (text, message) => {
    expect(refusal(() => parseNetwork(text, 'net.yaml'))).toStrictEqual({ message, warnings: 0 });
  });

  it.each(['!!binary aGk= : 1\n', '!!timestamp 2001-12-14 : 1\n'])(
    'network with the key %j that converts to an object: one line, no warning',
    (text) => {
      const { message, warnings } = refusal(() => parseNetwork(text, 'net.yaml'));
      expect({ lines: message.split('\n').length, warnings }).toStrictEqual({
        lines: 1,
        warnings: 0,
      });
    },
  );

  it('sidecar config: one line, no warning', () => {
    expect(refusal(() => parseSidecarConfig('service: a\n? [x]\n: 1\n', 'sc.yaml'))).toStrictEqual({
      message: 'sc.yaml:2:3: expected a plain key (a name), got a list as a key',
      warnings: 0,
    });
  });
});
