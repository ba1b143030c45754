import type { NetworkModel } from './NetworkModel.js';
import { type AnalysisLaw, isAnalysisLaw, orbitLawGap } from './orbitLaw.js';
import { successorLists, topologicalOrder } from './topology.js';

/**
 * The law an analysis is asked for: one by name, or `auto`, the default — the law measured to be
 * nearer the simulator for this kind of network (see {@link chooseLaw}).
 */
export type LawChoice = AnalysisLaw | 'auto';

/** Every {@link LawChoice}, as `--law` takes them. */
export const LAW_CHOICES: readonly LawChoice[] = ['auto', 'mean-field', 'orbit'];

/** Whether `name` is a {@link LawChoice}. */
export function isLawChoice(name: unknown): name is LawChoice {
  return name === 'auto' || isAnalysisLaw(name);
}

/** The law an analysis uses, and why it was chosen. */
export interface ChosenLaw {
  readonly law: AnalysisLaw;
  /** Why: asked for by name, or what made `auto` take it (a phrase, lower case). */
  readonly why: string;
}

/**
 * The law to analyse `network` with. A law asked for by name is taken as it is (the caller checks
 * `orbitLawRefusal` where it matters). `auto` takes the orbit law where it is measured to be
 * nearer the simulator than the mean field (docs/validation.md §9, docs/validation-timeouts-model.md:
 * the worst and median gaps of stand-alone services and routing chains with per-try timeouts) —
 * some per-try timeout, no call graph, M/M/1/m queues, no routing cycle — and the mean field
 * everywhere else: without timeouts the two were not compared, on call graphs the orbit law does
 * not run yet, and in routing cycles its worst gap is larger (a feedback its per-service states
 * do not carry).
 */
export function chooseLaw(network: NetworkModel, choice: LawChoice = 'auto'): ChosenLaw {
  if (choice !== 'auto') return { law: choice, why: 'asked for' };
  const timed = network.services.some((s) =>
    (s.timeouts ?? []).some((t) => t !== undefined && t > 0),
  );
  if (!timed) return { law: 'mean-field', why: 'no per-try timeout' };
  const gap = orbitLawGap(network);
  if (gap !== undefined) return { law: 'mean-field', why: gap.what };
  const routes = successorLists(network.services, { routes: true, calls: false });
  if (topologicalOrder(routes) === undefined) {
    return { law: 'mean-field', why: 'requests are routed round a cycle' };
  }
  return { law: 'orbit', why: 'per-try timeouts at M/M/1/m services standing alone or routing' };
}
