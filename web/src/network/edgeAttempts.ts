import type { NetworkCall, NetworkModel, NetworkReport } from 'difftry/model';
import { CLIENTS, type NetworkGraph } from './networkGraph.js';

/**
 * Attempts per second along each edge of a network's graph, per class (index as in
 * `network.classes`), keyed by edge id.
 *
 * A service's attempts (the report's Λ) are shared among what sends it requests in proportion
 * to the requests each sends: the clients their external rate γ; in routing mode a service i
 * the requests it hands on, λout_i·F_ij (exact, since every request arriving at a service makes
 * the same attempts there on average); in call-graph mode the calls i's accepted attempts make,
 * Λ_i (1 − s_i) times the calls per attempt (a sequential call list that stops at a failure
 * makes fewer, so where a service has several callers the split is approximate; with one it is
 * exact). The attempts into a service add up to its Λ.
 */
export function edgeAttempts(
  network: NetworkModel,
  report: NetworkReport,
  graph: NetworkGraph,
): Map<string, number[]> {
  const classes = network.classes.map((c) => c.name);
  const services = network.services.map((s) => report.services[s.name]);
  const figures = (i: number, p: number) => services[i]?.classes[classes[p] ?? ''];
  const sent = (from: number, to: number, p: number): number => {
    if (from === CLIENTS) return network.services[to]?.arrivals[p] ?? 0;
    const service = network.services[from];
    if (service === undefined) return 0;
    if (network.mode !== 'calls') {
      const routed = service.routes
        .filter((r) => r.to === to && (r.classIndex === undefined || r.classIndex === p))
        .reduce((sum, r) => sum + r.p, 0);
      return (figures(from, p)?.out ?? 0) * routed;
    }
    const callsTo = (calls: readonly NetworkCall[]) =>
      calls
        .filter((c) => c.to === to && (c.classIndex === undefined || c.classIndex === p))
        .reduce((sum, c) => sum + c.n, 0);
    const perAttempt =
      callsTo(service.calls ?? []) +
      (service.branches ?? []).reduce((sum, b) => sum + b.p * callsTo(b.calls), 0);
    const accepted = (figures(from, p)?.attempts ?? 0) * (1 - (services[from]?.s ?? 0));
    return accepted * perAttempt;
  };
  const into = new Map<number, { id: string; from: number }[]>();
  for (const edge of graph.edges) {
    into.set(edge.to, [...(into.get(edge.to) ?? []), { id: edge.id, from: edge.from }]);
  }
  const result = new Map<string, number[]>();
  for (const [to, sources] of into) {
    const perClass = sources.map(() => new Array<number>(classes.length).fill(0));
    classes.forEach((_, p) => {
      const rates = sources.map((source) => sent(source.from, to, p));
      const total = rates.reduce((a, b) => a + b, 0);
      const attempts = figures(to, p)?.attempts ?? 0;
      rates.forEach((rate, k) => {
        (perClass[k] as number[])[p] = total > 0 ? (attempts * rate) / total : 0;
      });
    });
    sources.forEach((source, k) => {
      result.set(source.id, perClass[k] as number[]);
    });
  }
  return result;
}
