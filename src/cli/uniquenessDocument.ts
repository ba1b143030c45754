import type { Shard } from '../experiments/shard/shard.js';
import type { UniquenessReport } from './formatUniquenessRun.js';

/**
 * The JSON document of a `difftry verify-uniqueness` run (or of one shard of it, or of the shards
 * merged): the figures the table shows, and what `difftry merge` checks before it adds shards up.
 */
export interface UniquenessDocument extends UniquenessReport {
  /** The difftry version that ran it. */
  readonly version: string;
  /** The part of the jobs it ran; absent for a whole run. */
  readonly shard?: Shard;
  readonly tolerance: number;
  readonly convergedRuns: number;
  readonly counterexamples: readonly (UniquenessReport['counterexamples'][number] & {
    readonly inits: readonly (number | undefined)[];
    readonly fixedPoints: string | undefined;
  })[];
}

/** The fields every shard of one run must share. */
const RUN_FIELDS = [
  'version',
  'seed',
  'form',
  'graphs',
  'configurationsPerGraph',
  'inits',
  'classesMax',
  'tolerance',
] as const;

/** What every shard of one run shares ({@link RUN_FIELDS}), for `difftry merge` to compare. */
export function uniquenessRun(document: UniquenessDocument): Readonly<Record<string, unknown>> {
  return Object.fromEntries(RUN_FIELDS.map((field) => [field, document[field]]));
}

/**
 * The whole run from its shards' documents (every shard of one run once, checked by the
 * caller): the counts added up, the counterexamples in graph and configuration order, the
 * threads and CPU time summed, the elapsed time the longest shard's (they run side by side).
 */
export function mergeUniquenessDocuments(
  shards: readonly UniquenessDocument[],
): UniquenessDocument {
  const [first] = shards;
  if (first === undefined) throw new Error('no shard to merge');
  const sum = (pick: (d: UniquenessDocument) => number) =>
    shards.reduce((total, d) => total + pick(d), 0);
  const guarantees = { ...first.guarantees };
  for (const d of shards.slice(1)) {
    for (const key of Object.keys(guarantees) as (keyof typeof guarantees)[]) {
      guarantees[key] += d.guarantees[key];
    }
  }
  const cases = sum((d) => d.cases);
  const elapsedSeconds = Math.max(...shards.map((d) => d.elapsedSeconds));
  const cpuSeconds = sum((d) => d.cpuSeconds);
  const { shard: _shard, ...run } = first;
  return {
    ...run,
    threads: sum((d) => d.threads),
    cases,
    configurations: sum((d) => d.configurations),
    convergedRuns: sum((d) => d.convergedRuns),
    nonConvergedRuns: sum((d) => d.nonConvergedRuns),
    nonConvergedConfigurations: sum((d) => d.nonConvergedConfigurations),
    guarantees,
    elapsedSeconds,
    casesPerSecond: cases / Math.max(elapsedSeconds, 1e-9),
    cpuSeconds,
    casesPerCpuSecond: cases / Math.max(cpuSeconds, 1e-9),
    counterexamples: shards
      .flatMap((d) => d.counterexamples)
      .sort((a, b) => a.graph - b.graph || a.configuration - b.configuration),
  };
}
