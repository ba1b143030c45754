import type { UniquenessForm } from '../experiments/uniqueness/uniquenessWorker.js';
import type { UniquenessTally } from '../model/uniqueness/index.js';
import { DISTINCT_TOLERANCE } from '../model/uniqueness/index.js';
import { fixed, formatTable } from './table.js';

/** The figures of a run of `difftry verify-uniqueness`, as its JSON document has them. */
export interface UniquenessReport {
  readonly seed: number;
  readonly form: UniquenessForm;
  readonly graphs: number;
  readonly configurationsPerGraph: number;
  readonly inits: number;
  readonly classesMax: number;
  readonly threads: number;
  readonly cases: number;
  readonly configurations: number;
  readonly nonConvergedRuns: number;
  readonly nonConvergedConfigurations: number;
  readonly guarantees: UniquenessTally['guarantees'];
  readonly elapsedSeconds: number;
  readonly casesPerSecond: number;
  /** The process's CPU time over the run (every thread), seconds. */
  readonly cpuSeconds: number;
  readonly casesPerCpuSecond: number;
  readonly counterexamples: readonly {
    readonly graph: number;
    readonly configuration: number;
    readonly classes: number;
    readonly services: number;
    readonly guarantee: string;
    readonly difference: number;
    readonly attemptsPerRequest?: { healthy: number; storm: number };
    readonly completion?: { healthy: number; storm: number };
    readonly network: string | undefined;
  }[];
}

/**
 * The human-readable report of `difftry verify-uniqueness`: the figures, then one line per
 * counterexample (for call graphs, per bistable configuration, with a note on what it means).
 */
export function formatUniquenessRun(document: UniquenessReport): string {
  const g = document.guarantees;
  const calls = document.form === 'calls';
  const found = document.counterexamples.length;
  const figures = formatTable(
    [
      { heading: 'verify-uniqueness', alignRight: false },
      { heading: '', alignRight: false },
    ],
    [
      ['seed', String(document.seed)],
      [
        'networks',
        calls
          ? 'call graphs (µBench-like and DGG-like), nested retries'
          : 'cyclic routing networks',
      ],
      ['graphs', String(document.graphs)],
      [
        'configurations',
        `${document.configurations} (${document.configurationsPerGraph} per graph, P ≤ ${document.classesMax})`,
      ],
      ['cases (solves)', `${document.cases} (${document.inits} starts per configuration)`],
      ['threads', String(document.threads)],
      [
        'elapsed',
        `${fixed(document.elapsedSeconds, 2)} s (${fixed(document.cpuSeconds, 2)} CPU-seconds)`,
      ],
      [
        'cases/s',
        `${fixed(document.casesPerSecond, 0)} (${fixed(document.casesPerCpuSecond, 0)} per CPU-second)`,
      ],
      [
        'non-converged runs',
        `${document.nonConvergedRuns} (in ${document.nonConvergedConfigurations} configurations)`,
      ],
      calls
        ? ['guarantee', `none for any (uniqueness is not proven for call graphs)`]
        : [
            'guarantee dag / norm / class-independent / none',
            `${g.dag} / ${g.norm} / ${g['class-independent']} / ${g.none}`,
          ],
      calls
        ? [
            'bistable configurations',
            `${found} (two fixed points: some s differs by more than ${DISTINCT_TOLERANCE.toExponential(0)})`,
          ]
        : [
            'counterexamples',
            `${found} (distinct: some λin differs by more than ${DISTINCT_TOLERANCE.toExponential(0)} relative)`,
          ],
    ],
  );
  if (found === 0) return figures;
  if (!calls) {
    const rows = formatTable(
      [
        { heading: 'graph' },
        { heading: 'config' },
        { heading: 'P' },
        { heading: 'services' },
        { heading: 'guarantee', alignRight: false },
        { heading: 'difference' },
        { heading: 'file', alignRight: false },
      ],
      document.counterexamples.map((c) => [
        String(c.graph),
        String(c.configuration),
        String(c.classes),
        String(c.services),
        c.guarantee,
        c.difference.toExponential(2),
        c.network ?? '',
      ]),
    );
    return `${figures}\n\nCounterexamples\n${rows}`;
  }
  const rows = formatTable(
    [
      { heading: 'graph' },
      { heading: 'config' },
      { heading: 'P' },
      { heading: 'services' },
      { heading: 'max |Δs|' },
      { heading: 'attempts/request healthy → storm' },
      { heading: 'completion healthy → storm' },
      { heading: 'file', alignRight: false },
    ],
    document.counterexamples.map((c) => [
      String(c.graph),
      String(c.configuration),
      String(c.classes),
      String(c.services),
      fixed(c.difference, 4),
      `${fixed(c.attemptsPerRequest?.healthy ?? Number.NaN, 2)} → ${fixed(c.attemptsPerRequest?.storm ?? Number.NaN, 2)}`,
      `${fixed(c.completion?.healthy ?? Number.NaN, 4)} → ${fixed(c.completion?.storm ?? Number.NaN, 4)}`,
      c.network ?? '',
    ]),
  );
  const note = [
    'These are findings about the model, not failures of the solver: with nested retries a call',
    'graph can be bistable. Beside the healthy state there is a retry storm — children rejecting,',
    'callers retrying whole subtrees, which keeps the children overloaded — and both are fixed',
    'points. Which one a network settles in depends on where it starts (its history). "Healthy"',
    'is the state in which more requests complete (completing alike, the one with fewer attempts).',
  ].join('\n');
  return `${figures}\n\nBistable call graphs (healthy state and retry storm)\n${rows}\n\n${note}`;
}
