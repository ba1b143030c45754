/** Options of `difftry simulate`, shared by the command, its sweep and its network simulation. */

import type { RunLength } from '../experiments/simulation/networkSimulationOptions.js';
import type { TimeoutStrategyDescription } from '../policy/timeouts/createTimeoutStrategy.js';
import type { NetworkStrategy } from '../sim/network/strategy.js';
import type { NetworkSource } from './input.js';
import type { ProgressReporter } from './progress.js';

/** Options of `difftry simulate`. */
export interface SimulateOptions extends NetworkSource, RunLength {
  readonly json?: boolean;
  readonly replications: number;
  readonly retries?: Record<string, number>;
  /** Retry strategy (`--strategy`); default `difftry`. */
  readonly strategy?: NetworkStrategy;
  /** `--timeout MS`: a fixed per-try timeout at every hop, for every class. */
  readonly timeout?: number;
  /** `--timeouts STRATEGY`: an adaptive per-try timeout strategy, a fresh one per hop. */
  readonly timeouts?: TimeoutStrategyDescription;
  /** `--sweep SERVICE.FIELD=FROM:TO:STEP`: one simulation per point, one row per point and class. */
  readonly sweep?: string;
  /**
   * With `sweep`: run only part I of N of its points (`--shard I/N`, I from 0) and write the
   * result to `out` as `simulate.shard-I-of-N.json`, for `difftry merge`.
   */
  readonly shard?: string;
  /** With `shard`: the folder the shard's result goes to (default the current one). */
  readonly out?: string;
  /** With `sweep` or `window`: also write the rows as CSV to this file. */
  readonly csv?: string;
  /** `--schedule FILE`: changes of arrival rates and capacities over virtual time. */
  readonly schedule?: string;
  /** `--window S`: measure per window of S virtual seconds (a table, `windows` in the JSON). */
  readonly window?: number;
  /** Put the analysis's prediction beside the simulation (always done in a sweep). */
  readonly compareAnalysis?: boolean;
  /** Where progress goes; default a bar on stderr (tests pass their own). */
  readonly progress?: ProgressReporter;
}
