import { Document, isMap, isScalar, isSeq, visit } from 'yaml';
import type { NetworkModel } from '../model/network/NetworkModel.js';
import type { ModelName } from '../model/phi/Phi.js';
import type { NetworkSpecInput } from './schema.js';

/**
 * A routing or call-graph network model as a network file's value, so that parsing it and
 * `toNetworkModel` give the same model back: the most common φ law becomes the network's
 * `model`, a service's retry limit that differs from its class's becomes a `retries` override,
 * and routes or calls that apply to one class name it. Only models without the residual-time
 * correction, branches or per-try timeouts are written.
 */
export function networkSpecOf(network: NetworkModel): NetworkSpecInput {
  const counts = new Map<ModelName, number>();
  for (const s of network.services) counts.set(s.model, (counts.get(s.model) ?? 0) + 1);
  const model = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'mixed';
  const classNames = network.classes.map((c) => c.name);
  return {
    model,
    classes: network.classes.map((c) => ({ name: c.name, retries: c.retryLimit })),
    services: network.services.map((service) => {
      const arrivals = Object.fromEntries(
        classNames.flatMap((name, p) => {
          const rate = service.arrivals[p] ?? 0;
          return rate > 0 ? [[name, rate]] : [];
        }),
      );
      const retries = Object.fromEntries(
        network.classes.flatMap((c, p) => {
          const limit = service.retryLimits[p] ?? c.retryLimit;
          return limit === c.retryLimit ? [] : [[c.name, limit]];
        }),
      );
      return {
        name: service.name,
        capacity: service.capacity,
        queue: service.queue,
        ...(Object.keys(arrivals).length > 0 ? { arrivals } : {}),
        ...(Object.keys(retries).length > 0 ? { retries } : {}),
        ...(service.model === model ? {} : { model: service.model }),
        ...(service.routes.length === 0
          ? {}
          : {
              routes: service.routes.map((r) => ({
                to: network.services[r.to]?.name ?? '',
                p: r.p,
                ...(r.classIndex === undefined ? {} : { class: classNames[r.classIndex] ?? '' }),
              })),
            }),
        ...((service.calls?.length ?? 0) === 0
          ? {}
          : {
              calls: (service.calls ?? []).map((call) => ({
                to: network.services[call.to]?.name ?? '',
                n: call.n,
                mode: call.parallel ? ('parallel' as const) : ('sequential' as const),
                ...(call.classIndex === undefined
                  ? {}
                  : { class: classNames[call.classIndex] ?? '' }),
              })),
            }),
      };
    }),
  };
}

/** The network as YAML under a comment, each class, route, arrivals and retries on one line. */
export function networkYaml(network: NetworkModel, comment: string): string {
  const doc = new Document(networkSpecOf(network));
  doc.commentBefore = comment;
  visit(doc, {
    Pair(_key, pair) {
      if (!isScalar(pair.key)) return;
      const field = pair.key.value;
      if ((field === 'arrivals' || field === 'retries') && isMap(pair.value))
        pair.value.flow = true;
      if ((field === 'classes' || field === 'routes' || field === 'calls') && isSeq(pair.value)) {
        for (const item of pair.value.items) if (isMap(item)) item.flow = true;
      }
    },
  });
  return doc.toString({ lineWidth: 0 });
}
