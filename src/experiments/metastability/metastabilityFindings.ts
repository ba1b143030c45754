/**
 * The sentences of docs/metastability.md that the numbers choose: what the replications did after
 * a trigger and before it, what the hotelReservation runs and analyses show, and the closing
 * bullets. A run that no longer shows the storm staying is not described as one that does.
 */

import { fixed, percent } from '../../report/numberFormat.js';
import type { MetastabilityConfig } from './MetastabilityConfig.js';
import type { MetastabilityResult, TriggeredRun } from './MetastabilityResult.js';
import { type ClassName, LIMITS, type LimitsKey } from './metastabilityLimits.js';
import { kText, pctPm, pmText, rate, storm, verdict } from './metastabilityText.js';

/** Attempts per second a storm would offer (every attempt failing): Σ γ_p (1 + k_p). */
export function stormAttempts(
  result: MetastabilityResult,
  limits: LimitsKey,
  total: number,
): number {
  const { high, low } = result.singleClassRates;
  const share = total / (high + low);
  const k = LIMITS[limits].retries;
  return share * (high * (1 + k.high) + low * (1 + k.low));
}

/** What one class did after the trigger, over the replications. */
export function recoveryText(run: TriggeredRun, c: ClassName): string {
  const s = run.summary[c];
  if (s.stormAtEnd === s.replications) {
    return `in the storm at the end of all ${s.replications} replications`;
  }
  if (s.recovered === s.replications) {
    return `recovered in all ${s.replications} replications, ${pmText(s.recoverySeconds)} s after capacity returned`;
  }
  return `recovered in ${s.recovered} of ${s.replications} replications (${pmText(s.recoverySeconds)} s after capacity returned, of those), in the storm at the end in ${s.stormAtEnd}`;
}

/** What both classes did after the trigger, in one clause when they did the same. */
export function bothClasses(run: TriggeredRun): string {
  const [high, low] = [recoveryText(run, 'high'), recoveryText(run, 'low')];
  return high === low
    ? `both classes ${verb(high)}`
    : `the high class ${verb(high)}, the low class ${verb(low)}`;
}

/** `in the storm …` reads as `are/is in the storm …`; `recovered …` as is. */
function verb(text: string): string {
  return text.startsWith('in ') ? `were ${text}` : text;
}

/**
 * The last averaged window of a run: attempts per request, and the service's ρ, timeouts and
 * queue.
 */
export function lastWindowFigures(run: TriggeredRun, service: string): string {
  const w = run.simulated.windows[run.simulated.windows.length - 1];
  if (w === undefined) return 'n/a';
  const high = w.classes.high;
  const svc = w.services[service];
  return `${fixed(high?.attemptsPerRequest ?? Number.NaN)} attempts per request, ${service} ρ = ${fixed(svc?.rho ?? Number.NaN)}, ${fixed(svc?.timeouts ?? Number.NaN, 0)} timeouts/s, ${fixed(svc?.inSystem ?? Number.NaN, 0)} requests in ${service}`;
}

/** What the replications did before the trigger: stayed healthy, or some tipped on their own. */
export function ownTipsText(run: TriggeredRun, R: number): string {
  const own = run.summary.high.tippedOnTheirOwn;
  const before = `the high class's mean window rejection before the drop is ${percent(meanBefore(run, 'high'))}`;
  if (own.length === 0) {
    return `Before the drop no replication left the healthy state (${before}: a timeout almost never fires).`;
  }
  return [
    `Before the drop ${own.length} of ${R} replication${own.length === 1 ? '' : 's'} had already tipped into the storm on ${own.length === 1 ? 'its' : 'their'} own`,
    `(first storm window at t = ${own.map((t) => `${t}`).join(', ')} s), which is why ${before}: the healthy state is`,
    'stable, but a burst of arrivals that queues more than T of work can start the storm without any',
    'trigger, and the storm then stays.',
  ].join(' ');
}

/** The high class's mean window rejection before the trigger (or over the run without one). */
function meanBefore(run: TriggeredRun, c: ClassName): number {
  const until = run.trigger?.at ?? Number.POSITIVE_INFINITY;
  const values = run.simulated.windows
    .filter((w) => w.end <= until)
    .map((w) => w.classes[c]?.rejection ?? Number.NaN)
    .filter(Number.isFinite);
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/** (d) in short: where hotelReservation is bistable under each choice of limits. */
export function hotelAnswer(result: MetastabilityResult): string[] {
  const timeouts = [...new Set(result.hotelAnalyses.map((h) => h.timeoutMs))];
  const at = (t: number, k: LimitsKey) =>
    result.hotelAnalyses.find((h) => h.timeoutMs === t && h.limits === k)?.atLoad;
  const bistableAt = (k: LimitsKey) => timeouts.filter((t) => at(t, k)?.bistable === true);
  const list = (xs: readonly number[]) =>
    xs.length === 0 ? 'at none of the timeouts' : `at T = ${xs.join(', ')} ms`;
  const uniform = bistableAt('uniform');
  const difftry = bistableAt('difftry');
  const monostableAt = timeouts.filter((t) => !uniform.includes(t) && !difftry.includes(t));
  const fewer = uniform.filter((t) => {
    const u = at(t, 'uniform');
    const d = at(t, 'difftry');
    const us = u === undefined ? undefined : storm(u);
    const ds = d === undefined ? undefined : storm(d);
    return us !== undefined && ds !== undefined && ds.attemptsPerRequest < us.attemptsPerRequest;
  });
  const out = [
    `**Is it bistable under uniform k = ${kText('uniform')}?** By the analysis at γ_low = ${result.hotelRates.low}, ${list(uniform)}.`,
    `**Under DiffTry k = ${kText('difftry')}?** ${list(difftry).replace(/^a/, 'A')}${difftry.length > 0 && uniform.every((t) => difftry.includes(t)) ? ' too: DiffTry removes none of the storms.' : '.'}`,
  ];
  if (fewer.length > 0) {
    out.push(
      `DiffTry's storm carries fewer attempts per request (${list(fewer)}; the low class retries once) but the high`,
      "class's own retries keep the frontend saturated.",
    );
  }
  if (monostableAt.length > 0) {
    out.push(
      `At ${list(monostableAt).replace(/^at /, '')} neither is bistable at this load: an attempt that may wait for the`,
      "whole frontend queue (50 / 143 s ≈ 0.35 s) rarely times out; the sweep's folds there are in the table.",
    );
  }
  return [out.join(' ')];
}

/**
 * (d) simulated: per timeout what the runs did with and without the trigger, and how deep their
 * storms were.
 */
export function hotelSimulatedText(
  result: MetastabilityResult,
  config: MetastabilityConfig,
): string[] {
  const R = config.replications;
  const lines: string[] = [];
  for (const t of config.hotelSimulatedTimeoutsMs) {
    const runs = result.hotelRuns.filter((r) => r.trigger.timeoutMs === t);
    const parts = runs.map(({ trigger, control }) => {
      const s = trigger.summary.high;
      const c = control.summary.high;
      const spontaneous =
        c.tipped > 0
          ? `${c.tipped} of ${R} tipped with no trigger at all`
          : 'none tipped without the trigger';
      const after =
        s.stormAtEnd === R
          ? `all ${R} stay in the storm after the drop`
          : s.recovered === R
            ? `all ${R} recover after the drop, ${pmText(s.recoverySeconds)} s after it`
            : `${s.recovered} of ${R} recover after the drop (${pmText(s.recoverySeconds)} s after it), ${s.stormAtEnd} ${s.stormAtEnd === 1 ? 'is' : 'are'} in the storm at the end`;
      return `${kText(trigger.limits)}: ${spontaneous}; ${after}`;
    });
    lines.push(`- T = ${t} ms — ${parts.join('; ')}.`);
  }
  const depth = result.hotelRuns
    .filter(({ trigger }) => trigger.summary.high.stormRejection.mean > 0)
    .map(({ trigger }) => {
      const s = storm(trigger.analysis);
      return `T = ${trigger.timeoutMs} ms ${kText(trigger.limits)}: ${pctPm(trigger.summary.high.stormRejection)} (analysis ${percent(s?.rejection.high ?? Number.NaN)})`;
    });
  lines.push(
    '',
    `How deep a simulated storm is while it lasts — the high class's mean rejection over each replication's storm windows after the drop, mean over the replications — beside the analysis's storm: ${depth.join('; ')}.`,
  );
  const shallow = result.hotelRuns.filter(
    ({ trigger }) =>
      (storm(trigger.analysis)?.rejection.high ?? 1) < 0.99 && trigger.summary.high.recovered > 0,
  );
  if (shallow.length > 0) {
    lines.push(
      '',
      `Where the analysis's storm lets some requests through (${[...new Set(shallow.map((r) => `T = ${r.trigger.timeoutMs} ms`))].join(', ')}), the simulated storm is itself only metastable and ends by chance — the analysis calls the storm stable, and in the mean it is, but a run of completions can drain the queue below T.`,
    );
  }
  const fragile = result.hotelRuns.filter(({ control }) => control.summary.high.tipped > 0);
  if (fragile.length > 0) {
    lines.push(
      '',
      `Without any trigger, ${fragile.map(({ control }) => `${control.summary.high.tipped} of ${R} replications with T = ${control.timeoutMs} ms ${kText(control.limits)}`).join(', ')} tipped into the storm on their own: the healthy state the analysis finds stable there is so shallow that the ordinary fluctuations of a frontend at ρ ≈ 0.5 are a trigger.`,
    );
  }
  return lines;
}

/** The closing bullets: what DiffTry changes, measured. */
export function summaryBullets(result: MetastabilityResult, config: MetastabilityConfig): string[] {
  const d = result.drops;
  const R = config.replications;
  const uLoop = result.loops.find((l) => l.limits === 'uniform');
  const dLoop = result.loops.find((l) => l.limits === 'difftry');
  return [
    `- One service at ${d.uniform.analysis.offeredRate} requests/s: uniform retries are bistable by the analysis and the ten-second drop leaves ${d.uniform.summary.high.stormAtEnd} of ${R} simulated replications in the storm (high-class rejection ${pctPm(d.uniform.summary.high.tailRejection)} at the end); with DiffTry the analysis finds ${verdict(d.difftry.analysis)} and ${d.difftry.summary.high.recovered} of ${R} replications recover, ${pmText(d.difftry.summary.high.recoverySeconds)} s after the capacity returns.`,
    `- The recovery point moves from ${rate(uLoop?.branches.recovery)} to ${rate(dLoop?.branches.recovery)} requests/s by the analysis, from ${pmText(uLoop?.recoveredAt ?? { mean: Number.NaN, ci95: Number.NaN })} to ${pmText(dLoop?.recoveredAt ?? { mean: Number.NaN, ci95: Number.NaN })} in the simulated ramps; the tipping point does not move (${rate(uLoop?.branches.tipping)} → ${rate(dLoop?.branches.tipping)}; simulated ${pmText(uLoop?.tippedAt ?? { mean: Number.NaN, ci95: Number.NaN })} → ${pmText(dLoop?.tippedAt ?? { mean: Number.NaN, ci95: Number.NaN })}).`,
    hotelBullet(result, config),
  ];
}

function hotelBullet(result: MetastabilityResult, config: MetastabilityConfig): string {
  const R = config.replications;
  const parts = config.hotelSimulatedTimeoutsMs.map((t) => {
    const of = (k: LimitsKey) =>
      result.hotelRuns.find((r) => r.trigger.timeoutMs === t && r.trigger.limits === k)?.trigger;
    const u = of('uniform');
    const d = of('difftry');
    if (u === undefined || d === undefined) return '';
    return `T = ${t} ms: ${u.summary.high.stormAtEnd} of ${R} (uniform) and ${d.summary.high.stormAtEnd} of ${R} (DiffTry) in the storm at the end`;
  });
  const analysis = result.hotelAnalyses
    .filter((h) => h.limits === 'difftry' && config.hotelSimulatedTimeoutsMs.includes(h.timeoutMs))
    .map((h) => `${h.timeoutMs} ms: ${verdict(h.atLoad)}`);
  return `- hotelReservation at γ = (${result.hotelRates.high}, ${result.hotelRates.low}) with DiffTry, by the analysis: ${analysis.join(', ')}; simulated after the drop, ${parts.filter((x) => x !== '').join('; ')}.`;
}
