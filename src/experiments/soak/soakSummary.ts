/**
 * The soak's verdict and report (scripts/soak.ts): the checks that decide PASS or FAIL, the
 * markdown summary printed at the end, and the progress line printed while it runs. Pure: the
 * executor gathers the figures.
 */
import { thousands, wholePercent } from '../../report/numberFormat.js';
import { formatMiB, type ProcessVerdict, type SoakCeilings } from './soakCeilings.js';
import type { LedgerTally } from './soakOutcomes.js';

/** One sidecar process as the report shows it. */
export interface ProcessReport {
  /** `edge`, `mesh`. */
  readonly name: string;
  readonly pid: number;
  readonly verdict: ProcessVerdict;
  /** Whether its `/healthz` answered 200 after the settle period. */
  readonly healthy: boolean;
}

/** A kind of request as the report shows it. */
export interface KindInfo {
  readonly name: string;
  readonly description: string;
  /** Normal traffic, whose 200s count towards the goodput. */
  readonly normal: boolean;
}

/** The admission each sidecar offers and the load it was offered. */
export interface LoadInfo {
  /** c, requests running at once. */
  readonly concurrency: number;
  /** m, requests in the system. */
  readonly systemCapacity: number;
  /** The application's service time of a normal request, ms. */
  readonly serviceMs: number;
  /** c / service time, requests per second. */
  readonly capacityPerSecond: number;
  /** Open-loop first attempts per second reaching each sidecar, by sidecar name. */
  readonly offeredPerSecond: Readonly<Record<string, number>>;
  /** Slow clients at once (slowloris heads and trickled bodies), by sidecar name. */
  readonly slowClients: Readonly<Record<string, number>>;
}

/** Everything the summary says. */
export interface SoakReport {
  /** When the load started (ISO 8601). */
  readonly startedAt: string;
  /** The source revision measured (a commit, `+ changes` when the tree differs). */
  readonly revision: string;
  readonly nodeVersion: string;
  /** How long the load ran, ms (measured). */
  readonly loadMs: number;
  /** The settle period after the load, ms. */
  readonly settleMs: number;
  readonly load: LoadInfo;
  readonly kinds: readonly KindInfo[];
  readonly ledger: LedgerTally;
  /** The warm-up before the baseline (light traffic, counted apart from the load). */
  readonly warmUp: Pick<LedgerTally, 'sent' | 'settled' | 'pending' | 'duplicates'>;
  /** Open-loop arrivals not sent because the in-flight bound was reached. */
  readonly skipped: number;
  /** Normal requests answered 200 per second of load, by sidecar name. */
  readonly goodputPerSecond: Readonly<Record<string, number>>;
  /** The ceilings of each process, by its name. */
  readonly ceilings: Readonly<Record<string, SoakCeilings>>;
  /** Least goodput a sidecar must keep, as a fraction of its admission capacity. */
  readonly minGoodputFraction: number;
  readonly processes: readonly ProcessReport[];
  /** Why the ceilings are what they are, one paragraph. */
  readonly ceilingNote: string;
}

/** One line of the verdict. */
export interface SoakCheck {
  readonly name: string;
  readonly pass: boolean;
  /** The figure behind it: `0`, `edge 31.2 req/s (78 % of 40)`. */
  readonly detail: string;
}

/**
 * The checks that decide the soak: no request lost, no outcome counted twice, no unexpected
 * outcome, the whole load offered, every sidecar under its ceilings and back near baseline,
 * alive and healthy, and each keeping a goodput of at least `minGoodputFraction` of its capacity
 * (so slow clients and faulty paths did not starve the gate).
 */
export function soakChecks(report: SoakReport): SoakCheck[] {
  const { ledger, warmUp } = report;
  const checks: SoakCheck[] = [
    {
      name: 'requests lost (sent − accounted for)',
      pass: ledger.pending === 0,
      detail: `${ledger.sent} − ${ledger.settled} = ${ledger.pending}`,
    },
    {
      name: 'warm-up requests lost',
      pass: warmUp.pending === 0,
      detail: `${warmUp.sent} − ${warmUp.settled} = ${warmUp.pending}`,
    },
    {
      name: 'outcomes counted twice',
      pass: ledger.duplicates + warmUp.duplicates === 0,
      detail: String(ledger.duplicates + warmUp.duplicates),
    },
    {
      name: 'unexpected outcomes',
      pass: ledger.unexpected === 0,
      detail: String(ledger.unexpected),
    },
    {
      name: 'arrivals skipped at the in-flight bound',
      pass: report.skipped === 0,
      detail: String(report.skipped),
    },
  ];
  const capacity = report.load.capacityPerSecond;
  for (const [name, goodput] of Object.entries(report.goodputPerSecond)) {
    const fraction = goodput / capacity;
    checks.push({
      name: `${name}: goodput ≥ ${percent(report.minGoodputFraction)} of capacity`,
      pass: fraction >= report.minGoodputFraction,
      detail: `${goodput.toFixed(1)} req/s (${percent(fraction)} of ${capacity})`,
    });
  }
  for (const process of report.processes) {
    const { violations } = process.verdict;
    checks.push({
      name: `${process.name}: ceilings, return to baseline, alive`,
      pass: violations.length === 0,
      detail: violations.length === 0 ? 'held' : violations.join('; '),
    });
    checks.push({
      name: `${process.name}: /healthz after settling`,
      pass: process.healthy,
      detail: process.healthy ? '200' : 'no 200',
    });
  }
  return checks;
}

/** Whether every check passed. */
export function soakPassed(checks: readonly SoakCheck[]): boolean {
  return checks.every((check) => check.pass);
}

const percent = wholePercent;
const count = thousands;
const minutes = (ms: number) => `${(ms / 60_000).toFixed(2)} min`;
const cell = (text: string) => text.replaceAll('|', '\\|');

/**
 * The markdown summary: the result, the set-up, the checks, requests by kind and outcome, and
 * each process's baseline, peak and final RSS and descriptors beside the ceilings.
 */
export function formatSoakSummary(report: SoakReport): string {
  const checks = soakChecks(report);
  const passed = soakPassed(checks);
  const { load, ledger, ceilings } = report;
  const sidecars = Object.keys(load.offeredPerSecond);
  const lines: string[] = [];
  lines.push('# Soak: edge and mesh sidecars at 10× admission capacity', '');
  lines.push(`- **Result: ${passed ? 'PASS' : 'FAIL'}**`);
  lines.push(
    `- Load ${minutes(report.loadMs)} from ${report.startedAt}, then ${(report.settleMs / 1000).toFixed(0)} s settling; revision ${report.revision}, node ${report.nodeVersion}.`,
  );
  lines.push(
    `- Admission of each sidecar: c = ${load.concurrency}, m = ${load.systemCapacity}, service time ${load.serviceMs} ms, so capacity c / S = ${load.capacityPerSecond} req/s.`,
  );
  lines.push(
    `- Offered (open-loop first attempts; the edge's retries to the mesh come on top): ${sidecars
      .map((name) => {
        const offered = load.offeredPerSecond[name] ?? 0;
        return `${name} ${offered.toFixed(1)} req/s (${(offered / load.capacityPerSecond).toFixed(1)}×)`;
      })
      .join(', ')}; slow clients at once: ${sidecars
      .map((name) => `${name} ${load.slowClients[name] ?? 0}`)
      .join(', ')}.`,
  );
  lines.push('', '## Checks', '', '| check | figure | result |', '| --- | --- | --- |');
  for (const check of checks) {
    lines.push(`| ${cell(check.name)} | ${cell(check.detail)} | ${check.pass ? 'PASS' : 'FAIL'} |`);
  }

  lines.push('', '## Requests', '');
  lines.push('| kind | what | sent | outcomes | unexpected |', '| --- | --- | ---: | --- | ---: |');
  const descriptions = new Map(report.kinds.map((k) => [k.name, k.description]));
  for (const [name, tally] of ledger.kinds) {
    const outcomes = tally.outcomes.map(([label, n]) => `${label}: ${count(n)}`);
    if (tally.pending > 0) outcomes.push(`**lost: ${count(tally.pending)}**`);
    lines.push(
      `| ${cell(name)} | ${cell(descriptions.get(name) ?? '')} | ${count(tally.sent)} | ${outcomes.join(', ') || '—'} | ${count(tally.unexpected)} |`,
    );
  }
  lines.push(`| **all** | | ${count(ledger.sent)} | | ${count(ledger.unexpected)} |`);
  lines.push(
    '',
    `Requests lost: sent ${count(ledger.sent)} − accounted for ${count(ledger.settled)} = **${count(ledger.pending)}**. ` +
      'Every request ends in exactly one outcome: a whole response (its status), `cut` (headers, ' +
      'then a short body), `closed` (FIN before any response), `reset`, or `client timeout`.',
  );

  lines.push('', '## Resources', '');
  lines.push(
    '| process | pid | samples | RSS baseline | RSS peak | RSS final | fds baseline | fds peak | fds final |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const { name, pid, verdict } of report.processes) {
    const { baseline, peak, final } = verdict;
    lines.push(
      `| ${name} | ${pid} | ${verdict.samples} | ${formatMiB(baseline.rssBytes)} | ${formatMiB(peak.rssBytes)} | ${formatMiB(final.rssBytes)} | ${fds(baseline.fds)} | ${fds(peak.fds)} | ${fds(final.fds)} |`,
    );
  }
  lines.push(
    '',
    `Ceilings: at every one-second sample from the baseline on, RSS and open descriptors under the ceiling; after the load stops, the drain and ${(report.settleMs / 1000).toFixed(0)} s of settling, the final medians back within the tolerance of the baseline medians.`,
    '',
    '| process | RSS ceiling | fds ceiling | final RSS | final fds |',
    '| --- | ---: | ---: | ---: | ---: |',
  );
  for (const { name } of report.processes) {
    const c = ceilings[name];
    if (c === undefined) continue;
    lines.push(
      `| ${name} | ${formatMiB(c.rssBytes)} | ${c.fds} | ≤ baseline + ${formatMiB(c.settleRssBytes)} | ≤ baseline + ${c.settleFds} |`,
    );
  }
  lines.push('', report.ceilingNote);
  return `${lines.join('\n')}\n`;
}

function fds(n: number): string {
  return Number.isFinite(n) ? String(n) : 'n/a';
}

/** What the progress line shows of one process. */
export interface ProgressProcess {
  readonly name: string;
  readonly rssBytes?: number;
  readonly fds?: number;
}

/**
 * The progress line (stderr): `soak 120/600 s  sent 47,210  in flight 38  unexpected 0  edge
 * 160.2 MiB 61 fds  mesh 150.3 MiB 40 fds`; a process not sampled shows `gone`.
 */
export function formatProgress(
  elapsedMs: number,
  totalMs: number,
  tally: Pick<LedgerTally, 'sent' | 'pending' | 'unexpected'>,
  processes: readonly ProgressProcess[],
): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(0);
  const parts = [
    elapsedMs <= totalMs
      ? `soak ${seconds(elapsedMs)}/${seconds(totalMs)} s`
      : `soak ${seconds(totalMs)}/${seconds(totalMs)} s, draining +${seconds(elapsedMs - totalMs)} s`,
    `sent ${count(tally.sent)}`,
    `in flight ${count(tally.pending)}`,
    `unexpected ${count(tally.unexpected)}`,
    ...processes.map((p) =>
      p.rssBytes === undefined || p.fds === undefined
        ? `${p.name} gone`
        : `${p.name} ${formatMiB(p.rssBytes)} ${p.fds} fds`,
    ),
  ];
  return parts.join('  ');
}
