import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../../src/cli/analyzeCommand.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { fileParameters } from '../../web/src/network/NetworkParameters.js';
import { solveNetwork } from '../../web/src/network/solveNetwork.js';

describe('the view’s solve', () => {
  for (const example of ['hotel', 'hotel-calls']) {
    it(`prints what \`difftry analyze --law mean-field --json\` prints for the same parameters (${example})`, async () => {
      const file = `examples/${example}.yaml`;
      const network = parseNetwork(
        readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'),
        file,
      );
      const parameters = { ...fileParameters(network), retries: { high: 4, low: 2 } };
      const { report } = solveNetwork(network, parameters);
      const { stdout } = await analyzeCommand({
        example,
        json: true,
        law: 'mean-field',
        retries: { high: 4, low: 2 },
      });
      expect(JSON.parse(JSON.stringify(report))).toEqual(JSON.parse(stdout));
    });
  }
});
