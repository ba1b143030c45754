/**
 * The detailed sections of docs/validation-calls.md: the networks the analysis did not converge
 * on, the bistable networks and which state each simulated run matched, every network that misses
 * the target service by service, and the chains hop by hop and with the `mm1m` law.
 */
import { nominalLoads } from '../../model/network/nominalLoads.js';
import { TARGET } from './callValidationCases.js';
import { byGroup, fmt, matchList, max, pm, stateName, within } from './callValidationSummary.js';
import { callDepths } from './equationsAtS.js';
import { type Outcome, rowsOf } from './runCallValidation.js';

/** Where the analysis did not converge: its iterations, residual and swinging services. */
export function notConvergedSection(outcomes: readonly Outcome[]): string[] {
  const md: string[] = [];
  // Where the analysis did not converge, or found two states.
  const notConverged = outcomes.filter((o) => !o.report.converged);
  md.push('### Networks the analysis did not converge on', '');
  if (notConverged.length === 0) md.push('None.', '');
  else {
    md.push(
      '| case | services | ρ₀ | iterations | residual | swinging services (low – high s) | main figures reported | simulation |',
      '| :--- | ---: | ---: | ---: | ---: | :--- | :--- | :--- |',
    );
    for (const o of notConverged) {
      const swings = (o.report.swinging ?? [])
        .map((s) => `${s.service} (${s.low.toFixed(3)} – ${s.high.toFixed(3)})`)
        .join(', ');
      const classes = o.c.network.classes.map((c) => c.name);
      md.push(
        `| ${o.c.id} | ${o.c.network.services.length} | ${fmt(o.c.rho0, 2)} | ${o.report.iterations} | ${o.report.residual.toExponential(2)} | ${swings || 'n/a'} | ${classes.map((n) => `${n} ${fmt(o.report.endToEnd[n]?.rejection ?? Number.NaN)}`).join(', ')} | ${classes.map((n) => `${n} ${pm(o.simulated.rejection[n]?.mean ?? Number.NaN, o.simulated.rejection[n]?.ci95 ?? Number.NaN)}`).join(', ')} |`,
      );
    }
    md.push('');
  }
  return md;
}

/** The bistable networks: both states, and which of them each simulated run matched. */
export function bistableSection(outcomes: readonly Outcome[]): string[] {
  const md: string[] = [];
  const bistable = outcomes.filter((o) => o.report.equilibria.length > 1);
  md.push(
    '### Bistable networks: which state the simulated runs matched',
    '',
    'Per run (in stream order): the equilibrium nearest its whole measured window, then its first ' +
      '→ last window (h: healthy, s: storm; the first state is the one the load raised from zero ' +
      'reached, and where both are storms they are numbered s1, s2), matched by the services where the states differ ' +
      '("services apart": how many, and the largest difference of s between the states); ' +
      '"distance" is the largest |s_run − s_state| of the matched state over those services and ' +
      'runs. "End to end apart": the largest per-class difference of rejection between the two ' +
      'states.',
    '',
  );
  if (bistable.length === 0) md.push('None.', '');
  else {
    md.push(
      '| case | ρ₀ | first state (high / low) | second state (high / low) | stable? | end to end apart | services apart | simulation (high / low) | runs matched (whole window) | first → last window | largest distance |',
      '| :--- | ---: | :--- | :--- | :--- | ---: | :--- | :--- | :--- | :--- | ---: |',
    );
    for (const o of bistable) {
      const classes = o.c.network.classes.map((c) => c.name);
      const state = (index: number) => {
        const e = o.report.equilibria[index];
        return e === undefined
          ? 'n/a'
          : `${stateName(o, index)}: ${classes.map((n) => fmt(e.endToEnd[n]?.rejection ?? Number.NaN)).join(' / ')}`;
      };
      const stable = o.report.equilibria
        .map((e, index) => `${stateName(o, index)} ${e.stable ? 'yes' : 'no'}`)
        .join(', ');
      const sim = classes
        .map((n) => pm(o.simulated.rejection[n]?.mean ?? Number.NaN, Number.NaN))
        .join(' / ');
      const [first, second] = o.report.equilibria;
      const apartEndToEnd = max(
        classes.map((n) =>
          Math.abs(
            (first?.endToEnd[n]?.rejection ?? Number.NaN) -
              (second?.endToEnd[n]?.rejection ?? Number.NaN),
          ),
        ),
      );
      const serviceGaps = o.c.network.services.map((sv) =>
        Math.abs((first?.services[sv.name]?.s ?? 0) - (second?.services[sv.name]?.s ?? 0)),
      );
      const apartServices = serviceGaps.filter((d) => d > 0.02).length;
      md.push(
        `| ${o.c.id} | ${fmt(o.c.rho0, 2)} | ${state(0)} | ${state(1)} | ${stable} | ${fmt(apartEndToEnd)} | ${apartServices} (${fmt(max(serviceGaps), 3)}) | ${sim} | ${matchList(o)} | ${o.matches.map((m) => `${stateName(o, m.first.index, true)}→${stateName(o, m.last.index, true)}`).join(' ')} | ${fmt(max(o.matches.map((m) => m.whole.distance)), 3)} |`,
      );
    }
    md.push('');
  }
  return md;
}

/** Every network that misses the target: where analysis and simulation part, service by service. */
export function worstSection(outcomes: readonly Outcome[]): string[] {
  const md: string[] = [];
  // Every network that misses the target: where analysis and simulation part, service by service.
  const worstOutcomes = [...outcomes]
    .filter((o) => !rowsOf(o).every(within))
    .sort((a, b) => max(rowsOf(b).map((r) => r.gap)) - max(rowsOf(a).map((r) => r.gap)));
  md.push(
    `### Every network with a gap above ${TARGET}, service by service (largest first)`,
    '',
    'For each, the six services whose attempt rejection s differs most between the analysis (its ' +
      'main state) and the simulation; depth counts calls from the entry; ρ is attempts / μ, ' +
      'retries included; ρ₀ the nominal load.',
    '',
  );
  for (const o of worstOutcomes) {
    const depths = callDepths(o.c.network);
    const loads = nominalLoads(o.c.network);
    const main = o.report.services;
    const worstRow = [...rowsOf(o)].sort((a, b) => b.gap - a.gap)[0];
    md.push(
      `**${o.c.id}** (${o.c.network.services.length} services, ρ₀ = ${fmt(o.c.rho0, 2)} at ${o.c.bottleneck}, ` +
        `${o.c.overloaded} services with ρ₀ > 1): ${worstRow?.cls} class, analysis ${fmt(worstRow?.pred ?? Number.NaN)}, ` +
        `simulation ${pm(worstRow?.sim ?? Number.NaN, worstRow?.simCi95 ?? Number.NaN)}, analysis at the ` +
        `simulated s ${fmt(worstRow?.atSimulatedS ?? Number.NaN)}; attempts per request ` +
        `${fmt(o.report.load.attemptsPerRequest, 1)} analysed, ${fmt(o.simulated.attemptsPerRequest.mean, 1)} simulated. ` +
        `At the simulated s the model's load equations are off by up to ${fmt(o.closureAtSimulatedS, 3)} in s ` +
        '(largest |φ(ρ(s)) − s|), and the relaxation started there ' +
        (o.fromSimulatedSConverged ? 'settles at ' : 'does not settle (its last iterate: ') +
        `${fmt(o.fromSimulatedS[worstRow?.cls ?? ''] ?? Number.NaN)}${o.fromSimulatedSConverged ? '' : ')'} (${worstRow?.cls} class).`,
      '',
      '| service | depth | μ | m | ρ₀ | analysis s | analysis ρ | simulated s | simulated ρ |',
      '| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    const differing = o.c.network.services
      .map((s, i) => ({
        s,
        i,
        diff: Math.abs((main[s.name]?.s ?? 0) - (o.simulated.services[s.name]?.s.mean ?? 0)),
      }))
      .sort((a, b) => b.diff - a.diff)
      .slice(0, 6);
    for (const { s, i } of differing) {
      const sim = o.simulated.services[s.name];
      md.push(
        `| ${s.name} | ${depths[i]} | ${s.capacity} | ${s.queue} | ${fmt(loads[i] ?? Number.NaN, 2)} | ${fmt(main[s.name]?.s ?? Number.NaN, 3)} | ${fmt(main[s.name]?.rho ?? Number.NaN, 2)} | ${pm(sim?.s.mean ?? Number.NaN, sim?.s.ci95 ?? Number.NaN)} | ${fmt(sim?.rho.mean ?? Number.NaN, 2)} |`,
      );
    }
    md.push('');
  }
  return md;
}

/** The chains hop by hop: where the flow's head and its tail stand. */
export function chainHopsSection(outcomes: readonly Outcome[]): string[] {
  const md: string[] = [];
  // The chains hop by hop: where the flow's head and its tail stand.
  md.push(
    '### The chains, hop by hop',
    '',
    'Attempt rejection s and offered load ρ (retries included) at the head s0, the next hop s1, ' +
      'the middle and the last hop, analysed and simulated.',
    '',
    '| chain | hop | analysis s | analysis ρ | simulated s | simulated ρ |',
    '| :--- | :--- | ---: | ---: | ---: | ---: |',
  );
  for (const o of byGroup(outcomes, 'chain')) {
    const n = o.c.network.services.length;
    for (const hop of [0, 1, Math.floor(n / 2), n - 1]) {
      const name = `s${hop}`;
      const analysed = o.report.services[name];
      const simulatedHop = o.simulated.services[name];
      md.push(
        `| ${o.c.id} (${o.c.note}) | ${name} | ${fmt(analysed?.s ?? Number.NaN)} | ${fmt(analysed?.rho ?? Number.NaN, 3)} | ${pm(simulatedHop?.s.mean ?? Number.NaN, simulatedHop?.s.ci95 ?? Number.NaN)} | ${fmt(simulatedHop?.rho.mean ?? Number.NaN, 3)} |`,
      );
    }
  }
  md.push('');
  return md;
}

/** The chains with `mm1m` at every hop: the law for small queues above saturation. */
export function chainMm1mSection(outcomes: readonly Outcome[]): string[] {
  const md: string[] = [];
  // The chains with mm1m at every hop: the law for small queues above saturation.
  md.push(
    '### The chains with `mm1m` at every hop',
    '',
    'The same chains analysed with the `mm1m` law (M/M/1/m blocking at every load) instead of ' +
      '`mixed` (which above ρ = 1 takes max(1 − 1/ρ, 1/(m + 1)), the fluid law with a floor); the ' +
      'simulation is the same.',
    '',
    '| chain | class | analysis, mixed | analysis, mm1m | simulation | gap, mixed | gap, mm1m | mm1m converged |',
    '| :--- | :--- | ---: | ---: | ---: | ---: | ---: | :--- |',
  );
  for (const o of byGroup(outcomes, 'chain')) {
    for (const r of rowsOf(o)) {
      const other = o.mm1m?.endToEnd[r.cls]?.rejection ?? Number.NaN;
      md.push(
        `| ${o.c.id} (${o.c.note}) | ${r.cls} | ${fmt(r.pred)} | ${fmt(other)} | ${pm(r.sim, r.simCi95)} | ${fmt(r.gap)} | ${fmt(Math.abs(other - r.sim))} | ${o.mm1m?.converged ? 'yes' : 'no'} |`,
      );
    }
  }
  md.push('');
  return md;
}
