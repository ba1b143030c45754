import { join } from 'node:path';
import type { NetworkSpec } from '../config/schema.js';
import { toExactJson } from '../experiments/shard/exactJson.js';
import { rangeText, type Shard, shardFileName, shardRange } from '../experiments/shard/shard.js';
import type { TimeoutStrategyDescription } from '../policy/timeouts/createTimeoutStrategy.js';
import type { CommandOutput } from './CommandOutput.js';
import { makeOutputDirectory, writeOutputFiles } from './outputPath.js';
import { packageVersion } from './packageVersion.js';
import type { SimulateOptions } from './SimulateOptions.js';
import { runSweep, sweepOutput } from './simulateSweep.js';
import type { Sweep } from './sweep.js';
import { sweepShardDocument } from './sweepShard.js';

/**
 * `difftry simulate --sweep … --shard I/N`: the shard's block of the sweep's points, simulated
 * as the whole run simulates them, written to `--out` as `simulate.shard-I-of-N.json` for
 * `difftry merge`; prints the shard's own table (or JSON) and says what it wrote on stderr.
 */
export async function simulateSweepShard(
  network: NetworkSpec,
  sweep: Sweep,
  timeouts: TimeoutStrategyDescription | undefined,
  options: SimulateOptions,
  shard: Shard,
): Promise<CommandOutput> {
  const out = options.out ?? '.';
  // Made before the run: a folder that cannot be written fails now, not after the work.
  await makeOutputDirectory(out, '--out');
  const range = shardRange(sweep.values.length, shard);
  const run = runSweep(network, sweep, timeouts, options, range);
  const document = sweepShardDocument(
    shard,
    { version: packageVersion(), network, retries: options.retries, values: sweep.values },
    run,
  );
  const path = join(out, shardFileName('simulate', shard));
  await writeOutputFiles([{ path, text: `${toExactJson(document, 2)}\n` }], '--out');
  const output = await sweepOutput(run, { json: options.json });
  return {
    ...output,
    stderr: `shard ${shard.index} of ${shard.count}: ${rangeText(range, sweep.values.length, 'point')}; wrote ${path} (difftry merge adds the shards up)`,
  };
}
