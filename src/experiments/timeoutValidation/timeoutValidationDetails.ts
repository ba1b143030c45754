/**
 * The detailed sections of docs/validation-timeouts-model.md: the orbit law beside the mean field,
 * the one-service grid as tables of T against ρ, the bistable points and where their runs ended,
 * and every point of the networks.
 */

import {
  type Outcome,
  otherIndex,
  type Row,
  risingIndex,
  rowsOf,
  stateLabel,
} from './runTimeoutValidation.js';
import { TIMED_CAPACITY, TIMEOUT_VALIDATION } from './timeoutCases.js';
import { GROUP_LABELS, GROUPS, NETWORK_GROUPS, TARGET } from './timeoutValidationCases.js';
import {
  byGroup,
  fmt,
  matchCounts,
  max,
  pm,
  stateList,
  within,
} from './timeoutValidationSummary.js';

const { queues: QUEUES, retries: RETRIES, rhos: RHOS, timeouts: TIMEOUTS } = TIMEOUT_VALIDATION;

/** The orbit law beside the mean field, on the groups it covers, by the per-run measure. */
export function orbitSection(outcomes: readonly Outcome[]): string[] {
  const md: string[] = [];
  const rows = outcomes.flatMap(rowsOf);
  // The orbit law beside the mean field, on the groups it covers, by the per-run measure.
  const median = (xs: readonly number[]) => {
    const sorted = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
    return sorted.length === 0 ? Number.NaN : (sorted[(sorted.length - 1) >> 1] as number);
  };
  md.push(
    '### The orbit law beside the mean field',
    '',
    'Every figure (class at a point, bistable points included) of the groups the orbit law covers ' +
      '(`analyze --law orbit`: M/M/1/m services standing alone or routing; hotelReservation uses ' +
      'the `mixed` law, and call graphs are not covered yet). A gap here is the mean over the runs ' +
      'of |a run’s rejection − the nearer state’s| of each analysis, so a bistable point counts ' +
      'too. docs/model.md, "The orbit law", says what the law is and which solver `auto` takes.',
    '',
    '| group | figures | mean field within 0.02 | orbit law within 0.02 | mean field worst / median | orbit law worst / median | orbit law time worst / median | orbit law worst point |',
    '| :--- | ---: | ---: | ---: | ---: | ---: | ---: | :--- |',
  );
  for (const g of GROUPS) {
    const covered = rows.filter((r) => r.o.c.group === g && !Number.isNaN(r.orbitRunGap));
    if (covered.length === 0) continue;
    const mf = covered.map((r) => r.meanFieldRunGap);
    const ob = covered.map((r) => r.orbitRunGap);
    const times = byGroup(outcomes, g).flatMap((o) =>
      o.orbit === undefined ? [] : [o.orbit.seconds],
    );
    const worst = covered.reduce((a, b) => (b.orbitRunGap > a.orbitRunGap ? b : a));
    md.push(
      `| ${GROUP_LABELS[g]} | ${covered.length} | ${mf.filter((x) => x <= TARGET).length} | ${ob.filter((x) => x <= TARGET).length} | ${fmt(max(mf))} / ${fmt(median(mf))} | ${fmt(max(ob))} / ${fmt(median(ob))} | ${max(times).toFixed(2)} s / ${median(times).toFixed(2)} s | ${worst.o.c.id} (${worst.cls}): ${worst.orbitStates} against ${fmt(worst.sim)} |`,
    );
  }
  md.push('');
  return md;
}

/** The single-service grid as tables of T against ρ, one per (m, k). */
export function singleGridSection(outcomes: readonly Outcome[]): string[] {
  const md: string[] = [];
  // The single-service grid as tables of T against ρ, one per (m, k).
  md.push(
    '### One service, by m and k',
    '',
    'Each cell: the analysis, then the simulation ± its half-width; a bistable cell gives both ' +
      'states and how many of the runs matched each; **bold** marks a unique-state gap above ' +
      `${TARGET}. h and s are the analysis's labels, healthy and storm: how it reached the state ` +
      '(raising the load from zero without a fold; from saturation, or past a fold), not how much ' +
      'it rejects — an h state can reject everything.',
    '',
  );
  for (const queue of QUEUES) {
    for (const retries of RETRIES) {
      md.push(
        `#### m = ${queue}, k = ${retries}`,
        '',
        `| ρ | ${TIMEOUTS.map((x) => `T = ${x}/μ (${(1000 * x) / TIMED_CAPACITY} ms)`).join(' | ')} |`,
        `| ---: | ${TIMEOUTS.map(() => ':---').join(' | ')} |`,
      );
      for (const rho of RHOS) {
        const cells = TIMEOUTS.map((x) => {
          const o = outcomes.find(
            (o) =>
              o.c.group === 'single' &&
              o.c.params.queue === queue &&
              o.c.params.retries === retries &&
              o.c.params.rho === rho &&
              o.c.params.x === x,
          );
          if (o === undefined) return 'n/a';
          const r = rowsOf(o)[0] as Row;
          const sim = pm(r.sim, r.simCi95);
          if (r.unique) {
            const gap = within(r) ? fmt(r.gap) : `**${fmt(r.gap)}**`;
            const tip =
              o.report.tippedAt === undefined ? '' : ` (tipped at ${fmt(o.report.tippedAt, 2)})`;
            return `${o.report.equilibria[0]?.kind[0]} ${fmt(r.pred)}${tip} · ${sim} · gap ${gap}`;
          }
          return `h ${fmt(r.predHealthy)} / s ${fmt(r.predStorm)} · ${sim} · runs ${matchCounts(o, (m) => m.whole)}`;
        });
        md.push(`| ${rho} | ${cells.join(' | ')} |`);
      }
      md.push('');
    }
  }
  return md;
}

/** Bistable points in detail: both states and where the runs ended. */
export function bistableSection(outcomes: readonly Outcome[]): string[] {
  const md: string[] = [];
  // Bistable points in detail.
  const bistable = outcomes.filter((o) => o.report.equilibria.length > 1);
  md.push(
    '### Bistable points: where the simulated runs ended',
    '',
    'Per point: both states, the one the analysis reached raising the load from zero first; the runs matched to each over the whole measured window and over ' +
      'the last window; runs whose first and last windows matched different states (tipped ' +
      'during the measurement); the simulated mean over all runs.',
    '',
  );
  if (bistable.length === 0) md.push('None.', '');
  else {
    md.push(
      '| case | class | from idle | the other | runs matched (whole window) | runs matched (last window) | tipped during the window | simulation, all runs |',
      '| :--- | :--- | ---: | ---: | :--- | :--- | ---: | ---: |',
    );
    for (const o of bistable) {
      for (const r of rowsOf(o)) {
        md.push(
          `| ${o.c.id} | ${r.cls} | ${stateLabel(o, risingIndex(o))} ${fmt(r.predRising)} | ${stateLabel(o, otherIndex(o))} ${fmt(o.report.equilibria[otherIndex(o)]?.endToEnd[r.cls]?.rejection ?? Number.NaN)} | ${matchCounts(o, (m) => m.whole)} | ${matchCounts(o, (m) => m.last)} | ${o.matches.filter((m) => m.first.index !== m.last.index).length} | ${pm(r.sim, r.simCi95)} |`,
        );
      }
    }
    md.push('');
  }
  return md;
}

/** The networks in full: one table per group, every point and class. */
export function networkSections(outcomes: readonly Outcome[]): string[] {
  const md: string[] = [];
  // The networks in full.
  for (const g of NETWORK_GROUPS) {
    md.push(
      `### ${GROUP_LABELS[g]}`,
      '',
      'Where the analysis finds two states, the analysis column and the gap are those of the ' +
        'state it reached raising the load from zero (healthy, or the one it tipped into), which ' +
        'a run started idle should meet.',
      '',
      '| case | equilibria | tipped at | class (k) | analysis | simulation | gap | runs matched |',
      '| :--- | :--- | ---: | :--- | ---: | ---: | ---: | :--- |',
    );
    for (const o of byGroup(outcomes, g)) {
      for (const r of rowsOf(o)) {
        const gapValue = r.unique ? r.gap : Math.abs(r.predRising - r.sim);
        const gap = !r.unique || gapValue <= TARGET ? fmt(gapValue) : `**${fmt(gapValue)}**`;
        const states = r.unique
          ? stateList(o)
          : o.report.equilibria
              .map(
                (e, index) =>
                  `${stateLabel(o, index)} ${fmt(e.endToEnd[r.cls]?.rejection ?? Number.NaN)}`,
              )
              .join(' / ');
        md.push(
          `| ${o.c.id} | ${states} | ${o.report.tippedAt === undefined ? '–' : fmt(o.report.tippedAt, 3)} | ${r.cls} (${r.k}) | ${fmt(r.unique ? r.pred : r.predRising)} | ${pm(r.sim, r.simCi95)} | ${gap} | ${r.unique ? '–' : matchCounts(o, (m) => m.whole)} |`,
        );
      }
    }
    md.push('');
  }
  return md;
}
