/**
 * The section of docs/validation-calls.md that sets the analysis with follow-up calls
 * (`NetworkModel.followUps`, docs/model.md "Follow-up calls") beside the default one, against the
 * same simulation runs (scripts/validate-calls.ts).
 */
import type { NetworkReport } from '../../model/network/NetworkReport.js';
import { fixed, plusMinus } from '../../report/numberFormat.js';

/** One generated network: both analyses, the simulation and how long the second took. */
export interface FollowUpCase {
  readonly id: string;
  readonly classes: readonly string[];
  readonly report: NetworkReport;
  readonly followUps: NetworkReport;
  readonly followUpSeconds: number;
  readonly simulated: Readonly<Record<string, { readonly mean: number; readonly ci95: number }>>;
}

/** Largest |analysis − simulation| over the classes of one report. */
function worstGap(c: FollowUpCase, report: NetworkReport): number {
  return Math.max(
    ...c.classes.map((cls) =>
      Math.abs((report.endToEnd[cls]?.rejection ?? Number.NaN) - (c.simulated[cls]?.mean ?? 0)),
    ),
  );
}

/**
 * The markdown lines: a summary of both analyses over the cases (networks with every class
 * within `target`, the largest gap, how many did not converge) and one row per network whose
 * figures the follow-ups move by more than 0.001.
 */
export function followUpSection(cases: readonly FollowUpCase[], target: number): string[] {
  const fmt = (x: number) => fixed(x, 4);
  const summary = (pick: (c: FollowUpCase) => NetworkReport) => {
    const gaps = cases.map((c) => worstGap(c, pick(c)));
    return {
      within: gaps.filter((g) => g <= target).length,
      worst: Math.max(...gaps),
      median: [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)] ?? Number.NaN,
      unconverged: cases.filter((c) => !pick(c).converged).length,
    };
  };
  const base = summary((c) => c.report);
  const follow = summary((c) => c.followUps);
  const times = cases.map((c) => c.followUpSeconds).sort((a, b) => a - b);
  const lines = [
    '### With follow-up calls (`followUps`, `analyze --follow-ups`)',
    '',
    'The same generated networks analysed with follow-up calls (docs/model.md, "Follow-up calls"): ' +
      'the next of a caller’s sequential calls to a service that makes no calls of its own comes ' +
      'the moment the one before is back, and is let in. The simulation is the same.',
    '',
    '| analysis | networks with every class within 0.03 | largest gap | median of the networks’ largest gaps | not converged |',
    '| :--- | ---: | ---: | ---: | ---: |',
    `| default | ${base.within} / ${cases.length} | ${fmt(base.worst)} | ${fmt(base.median)} | ${base.unconverged} |`,
    `| follow-up calls | ${follow.within} / ${cases.length} | ${fmt(follow.worst)} | ${fmt(follow.median)} | ${follow.unconverged} |`,
    '',
    `Analysis with follow-up calls: worst ${times.at(-1)?.toFixed(1)} s, median ` +
      `${times[Math.floor(times.length / 2)]?.toFixed(2)} s a network. Networks whose figures it moves by more than 0.001:`,
    '',
    '| case | class | default | follow-up calls | simulation | gap, default | gap, follow-up calls | converged |',
    '| :--- | :--- | ---: | ---: | ---: | ---: | ---: | :--- |',
  ];
  for (const c of cases) {
    for (const cls of c.classes) {
      const a = c.report.endToEnd[cls]?.rejection ?? Number.NaN;
      const b = c.followUps.endToEnd[cls]?.rejection ?? Number.NaN;
      if (!(Math.abs(a - b) > 0.001)) continue;
      const sim = c.simulated[cls];
      lines.push(
        `| ${c.id} | ${cls} | ${fmt(a)} | ${fmt(b)} | ${plusMinus(sim?.mean ?? Number.NaN, sim?.ci95 ?? Number.NaN, 4)} | ${fmt(Math.abs(a - (sim?.mean ?? 0)))} | ${fmt(Math.abs(b - (sim?.mean ?? 0)))} | ${c.followUps.converged ? 'yes' : 'no'} |`,
      );
    }
  }
  lines.push('');
  return lines;
}
