import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import { toNetworkModel } from '../../src/config/toNetworkModel.js';
import { analyzeNetwork } from '../../src/model/network/analyzeNetwork.js';
import { edgeAttempts } from '../../web/src/network/edgeAttempts.js';
import { CLIENTS, networkGraph } from '../../web/src/network/networkGraph.js';

const solved = (file: string, edit: (text: string) => string = (t) => t) => {
  const text = edit(readFileSync(new URL(`../../examples/${file}`, import.meta.url), 'utf8'));
  const model = toNetworkModel(parseNetwork(text, file));
  return { model, report: analyzeNetwork(model), graph: networkGraph(model) };
};

describe('the network graph', () => {
  it('has the clients, every service, and one edge per pair that routes or calls join', () => {
    const { model, graph } = solved('hotel-calls.yaml');
    expect(graph.nodes.map((n) => n.name)).toEqual([
      'clients',
      ...model.services.map((s) => s.name),
    ]);
    const name = (i: number) => (i === CLIENTS ? 'clients' : model.services[i]?.name);
    expect(graph.edges.map((e) => `${name(e.from)}→${name(e.to)}`).sort()).toEqual(
      [
        'clients→frontend',
        'frontend→search',
        'frontend→reservation',
        'frontend→profile',
        'frontend→recommendation',
        'frontend→user',
        'search→geo',
        'search→rate',
      ].sort(),
    );
  });
});

describe('attempts along the edges', () => {
  for (const file of ['hotel.yaml', 'hotel-calls.yaml', 'two-tier.yaml']) {
    it(`add up to each service's attempts (${file})`, () => {
      const { model, report, graph } = solved(file);
      const attempts = edgeAttempts(model, report, graph);
      model.services.forEach((service, j) => {
        model.classes.forEach((c, p) => {
          const into = graph.edges
            .filter((e) => e.to === j)
            .reduce((sum, e) => sum + (attempts.get(e.id)?.[p] ?? 0), 0);
          const expected = report.services[service.name]?.classes[c.name]?.attempts ?? 0;
          expect(into, `${service.name} ${c.name}`).toBeCloseTo(expected, 9);
        });
      });
    });
  }

  it('in routing mode, are the requests handed on times the attempts per request there', () => {
    // frontend → search carries λout_frontend · 0.6 requests/s of each class (two-tier.yaml).
    const { model, report, graph } = solved('two-tier.yaml');
    const attempts = edgeAttempts(model, report, graph);
    const frontend = report.services.frontend?.classes;
    const search = report.services.search?.classes;
    for (const name of ['high', 'low']) {
      const p = name === 'high' ? 0 : 1;
      const requests = (frontend?.[name]?.out ?? 0) * 0.6;
      const perRequest = (search?.[name]?.attempts ?? 0) / (search?.[name]?.in ?? 1);
      expect(attempts.get('0->1')?.[p]).toBeCloseTo(requests * perRequest, 9);
    }
  });

  it('from the clients, are the entry attempts when nothing else calls the entry', () => {
    const { model, report, graph } = solved('hotel-calls.yaml');
    const attempts = edgeAttempts(model, report, graph);
    expect(attempts.get(`${CLIENTS}->0`)).toEqual(
      model.classes.map((c) => report.services.frontend?.classes[c.name]?.attempts),
    );
  });
});
