/**
 * The CSV files of docs/metastability.*: every simulated window (metastability.csv) and every
 * point of the analysis's branches (metastability-branches.csv). Pure.
 */

import { csvLine } from '../../report/csv.js';
import type { MetastabilityResult, TriggeredRun } from './MetastabilityResult.js';
import type { Branches } from './metastabilityAnalysis.js';
import { CLASSES, type LimitsKey } from './metastabilityLimits.js';
import { kText } from './metastabilityText.js';

/** metastability.csv: every averaged window of every simulated run, per class. */
export function windowsCsv(result: MetastabilityResult): string {
  const header = [
    'panel',
    'run',
    'k',
    'timeoutMs',
    'trigger',
    'start',
    'end',
    'offeredRate',
    'class',
    'rejection',
    'rejectionCi95',
    'attemptsPerRequest',
    'attemptsPerRequestCi95',
    'timeouts',
    'timeoutsCi95',
  ];
  const lines = [header.join(',')];
  const add = (
    panel: string,
    run: string,
    limits: LimitsKey,
    timeoutMs: number,
    trigger: string,
    windows: TriggeredRun['simulated']['windows'],
    offered: readonly number[],
  ) => {
    windows.forEach((w, i) => {
      for (const c of CLASSES) {
        const f = w.classes[c];
        if (f === undefined) continue;
        lines.push(
          csvLine([
            panel,
            run,
            kText(limits),
            timeoutMs,
            trigger,
            w.start,
            w.end,
            offered[i] ?? Number.NaN,
            c,
            f.rejection,
            f.rejectionCi95,
            f.attemptsPerRequest,
            f.attemptsPerRequestCi95,
            f.timeouts,
            f.timeoutsCi95,
          ]),
        );
      }
    });
  };
  const triggerText = (run: TriggeredRun) =>
    run.trigger === undefined
      ? 'none'
      : `${run.trigger.service} x ${run.trigger.factor} from ${run.trigger.at} to ${run.trigger.until} s`;
  for (const [key, run] of Object.entries(result.drops)) {
    add(
      run.limits === 'uniform' ? 'a' : 'b',
      key,
      run.limits,
      run.timeoutMs,
      triggerText(run),
      run.simulated.windows,
      run.offeredRates,
    );
  }
  for (const loop of result.loops) {
    add(
      'c',
      `loop-${loop.limits}`,
      loop.limits,
      100,
      'ramp',
      loop.simulated.windows,
      loop.offeredRates,
    );
  }
  for (const { trigger, control } of result.hotelRuns) {
    for (const [name, run] of [
      ['trigger', trigger],
      ['control', control],
    ] as const) {
      add(
        'd',
        `hotel-T${run.timeoutMs}-${run.limits}-${name}`,
        run.limits,
        run.timeoutMs,
        triggerText(run),
        run.simulated.windows,
        run.offeredRates,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** metastability-branches.csv: every point of the analysis's branches, per class. */
export function branchesCsv(result: MetastabilityResult): string {
  const lines = ['network,k,timeoutMs,parameter,value,branch,class,rejection,tipping,recovery'];
  const add = (
    network: string,
    limits: LimitsKey,
    timeoutMs: number,
    parameter: string,
    b: Branches,
  ) => {
    for (const point of b.points) {
      for (const branch of ['healthy', 'storm'] as const) {
        const values = point[branch];
        if (values === undefined) continue;
        for (const c of CLASSES) {
          lines.push(
            csvLine([
              network,
              kText(limits),
              timeoutMs,
              parameter,
              point.value,
              branch,
              c,
              values[c],
              b.tipping ?? Number.NaN,
              b.recovery ?? Number.NaN,
            ]),
          );
        }
      }
    }
  };
  for (const loop of result.loops)
    add('metastable-classes', loop.limits, 100, 'offeredRate', loop.branches);
  for (const h of result.hotelAnalyses)
    add('hotel-calls', h.limits, h.timeoutMs, 'frontend.low', h.branches);
  return `${lines.join('\n')}\n`;
}
