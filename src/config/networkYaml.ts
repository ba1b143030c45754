import { Document, isMap, isScalar, isSeq, visit } from 'yaml';
import { compactNetwork } from './generators/compactNetwork.js';
import type { NetworkSpec } from './schema.js';

/** Fields written as one-line mappings. */
const FLOW_MAPS = new Set(['arrivals', 'retries', 'timeouts']);
/** Lists whose items are written as one-line mappings. */
const FLOW_ITEMS = new Set(['classes', 'routes', 'calls']);

/**
 * A network as YAML in the style of docs/design.md's example: defaults left out, each class,
 * route, call and arrivals mapping on one line, under `header` as its comment (each line of it a
 * comment line). Parsing the text gives back `network`.
 */
export function networkYaml(network: NetworkSpec, header: string): string {
  const doc = new Document(compactNetwork(network));
  doc.commentBefore = header
    .split('\n')
    .map((line) => (line === '' ? '' : ` ${line}`))
    .join('\n');
  visit(doc, {
    Pair(_key, pair) {
      if (!isScalar(pair.key)) return;
      const field = String(pair.key.value);
      if (FLOW_MAPS.has(field) && isMap(pair.value)) pair.value.flow = true;
      if (FLOW_ITEMS.has(field) && isSeq(pair.value)) {
        for (const item of pair.value.items) if (isMap(item)) item.flow = true;
      }
    },
  });
  return doc.toString({ lineWidth: 0 });
}
