import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import {
  type Document,
  mutateDocument,
  mutationsArbitrary,
  oddValueArbitrary,
  plausibleValueArbitrary,
} from './mutateDocument.js';

// The files a user hands the CLI, as text: the repository's examples mutated a little (the
// well-formed-but-wrong files a schema must name), their text cut or garbled (the malformed
// ones a parser must refuse), and a few shapes from nowhere.

const EXAMPLES = new URL('../../../examples/', import.meta.url);

function example(name: string): string {
  return readFileSync(new URL(name, EXAMPLES), 'utf8');
}

/** The network files of examples/, as text. */
export const NETWORK_EXAMPLES: readonly string[] = [
  'single-service.yaml',
  'two-tier.yaml',
  'hotel.yaml',
  'hotel-calls.yaml',
  'metastable.yaml',
  'metastable-classes.yaml',
].map(example);

/** The schedule files of examples/, as text. */
export const SCHEDULE_EXAMPLES: readonly string[] = [
  'capacity-drop.yaml',
  'capacity-drop-light.yaml',
  'hotel-frontend-drop.yaml',
  'load-loop.yaml',
  'load-ramp.yaml',
].map(example);

/** The sidecar config of examples/, as text. */
export const SIDECAR_EXAMPLE: string = example('sidecar.yaml');

/** Text garbled the ways files break: cut short, a line lost, bytes inserted. */
function garbledText(texts: readonly string[]): fc.Arbitrary<string> {
  return fc
    .record({
      text: fc.constantFrom(...texts),
      at: fc.nat({ max: 100_000 }),
      how: fc.constantFrom('cut', 'drop-line', 'insert', 'tab-indent'),
      inserted: fc.constantFrom(
        ':',
        '- ',
        '{',
        ']',
        '"',
        '\t',
        '\n  ',
        '&a',
        '*a',
        '!!binary',
        '\0',
        '%',
        '\n? [k]\n: 1\n',
        '\nx: {[k]: 1}\n',
      ),
    })
    .map(({ text, at, how, inserted }) => {
      const i = at % (text.length + 1);
      if (how === 'cut') return text.slice(0, i);
      if (how === 'insert') return text.slice(0, i) + inserted + text.slice(i);
      const lines = text.split('\n');
      const line = at % lines.length;
      if (how === 'drop-line') lines.splice(line, 1);
      else lines[line] = `\t${lines[line]}`;
      return lines.join('\n');
    });
}

/** A parsed document rendered as YAML or JSON text (both are accepted by the CLI). */
function rendered(document: Document, json: boolean): string {
  return json ? JSON.stringify(document) : stringify(document);
}

/**
 * The text of a network file: an example mutated (mostly), garbled, or a small wrong document.
 * @param largest the largest number a mutation writes (keep simulations short with ~1000).
 */
export function networkFileArbitrary(largest = Number.MAX_VALUE): fc.Arbitrary<string> {
  const mutated = (values: fc.Arbitrary<Document>) =>
    fc
      .record({
        text: fc.constantFrom(...NETWORK_EXAMPLES),
        mutations: mutationsArbitrary(values, 3),
        json: fc.boolean(),
      })
      .map(({ text, mutations, json }) =>
        rendered(mutateDocument(parse(text) as Document, mutations), json),
      );
  return fc.oneof(
    { weight: 4, arbitrary: mutated(oddValueArbitrary(largest)) },
    { weight: 4, arbitrary: mutated(plausibleValueArbitrary()) },
    { weight: 2, arbitrary: fc.constantFrom(...NETWORK_EXAMPLES) },
    { weight: 2, arbitrary: garbledText(NETWORK_EXAMPLES) },
    { weight: 1, arbitrary: wrongDocumentArbitrary() },
  );
}

/** The text of a schedule file (`simulate --schedule`): an example mutated or garbled. */
export function scheduleFileArbitrary(): fc.Arbitrary<string> {
  const mutated = fc
    .record({
      text: fc.constantFrom(...SCHEDULE_EXAMPLES),
      mutations: mutationsArbitrary(oddValueArbitrary(1000), 2),
    })
    .map(({ text, mutations }) => stringify(mutateDocument(parse(text) as Document, mutations)));
  return fc.oneof(
    { weight: 3, arbitrary: mutated },
    { weight: 1, arbitrary: fc.constantFrom(...SCHEDULE_EXAMPLES) },
    { weight: 1, arbitrary: garbledText(SCHEDULE_EXAMPLES) },
  );
}

/** Documents of the wrong shape altogether: a scalar, a list, an empty mapping, binary. */
function wrongDocumentArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('', '\n', '---\n---\n', '[]', '{}', 'null', '42', '"x"', '\uFEFF', '\xFF\xFE'),
    fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 40 }),
  );
}

/** Listen addresses stay on loopback, port 0, or are plainly invalid: never a real port. */
const LISTEN_VALUES: readonly Document[] = [
  '127.0.0.1:0',
  0,
  'nope',
  '127.0.0.1:99999',
  -1,
  null,
  [],
];

/**
 * The text of a sidecar config (`difftry proxy --config`): examples/sidecar.yaml, every listener
 * moved to 127.0.0.1 port 0, mutated (listen addresses only ever become another safe value).
 */
export function sidecarConfigArbitrary(): fc.Arbitrary<string> {
  const base = loopbackOnly(parse(SIDECAR_EXAMPLE) as Document);
  const mutated = fc
    .record({
      mutations: mutationsArbitrary(fc.oneof(oddValueArbitrary(), plausibleValueArbitrary()), 3),
      listen: fc.array(fc.constantFrom(...LISTEN_VALUES), { maxLength: 3 }),
      json: fc.boolean(),
      shape: fc.constantFrom('both', 'inbound', 'outbound'),
    })
    .map(({ mutations, listen, json, shape }) => {
      const document = structuredClone(base) as Record<string, Document>;
      if (shape === 'inbound') delete document.outbound;
      if (shape === 'outbound') delete document.inbound;
      let result = mutateDocument(document, mutations, (path) =>
        path.some((key) => key === 'listen'),
      );
      listen.forEach((value, i) => {
        result = setListen(result, i, value);
      });
      return rendered(loopbackOnly(result, true), json);
    });
  return fc.oneof(
    { weight: 5, arbitrary: mutated },
    { weight: 1, arbitrary: fc.constant(stringify(base)) },
    { weight: 1, arbitrary: garbledText([stringify(base)]) },
    { weight: 1, arbitrary: wrongDocumentArbitrary() },
  );
}

/** The i-th listener (inbound, outbound, admin) set to `value`, if that listener exists. */
function setListen(document: Document, i: number, value: Document): Document {
  const key = ['inbound', 'outbound', 'admin'][i] as string;
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return document;
  const listener = document[key];
  if (listener !== null && typeof listener === 'object' && !Array.isArray(listener)) {
    listener.listen = value;
  }
  return document;
}

/**
 * `document` with every `listen` on 127.0.0.1 port 0, or (with `keepSafe`) left as it is when it
 * is one of the safe values; a mutation that moved a `listen` key elsewhere is caught here too.
 */
function loopbackOnly(document: Document, keepSafe = false): Document {
  const visit = (node: Document, key?: string | number): Document => {
    if (key === 'listen' && !(keepSafe && LISTEN_VALUES.some((v) => isSameValue(v, node)))) {
      return '127.0.0.1:0';
    }
    if (Array.isArray(node)) return node.map((item, i) => visit(item, i));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, visit(v, k)]));
    }
    return node;
  };
  return visit(document);
}

function isSameValue(a: Document, b: Document): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The text of a latency sample (`timeouts fit FILE`): seconds one a line with an optional header,
 * as examples/latencies.csv; with odd lines (blank, negative, NaN, text, CRLF, commas) sometimes.
 */
export function latencyCsvArbitrary(): fc.Arbitrary<string> {
  const sample = fc.oneof(
    { weight: 8, arbitrary: fc.double({ min: 1e-6, max: 10, noNaN: true }).map(String) },
    { weight: 1, arbitrary: fc.constantFrom('0', '-0', '1e-300', '1e300', '5e-324', '0.1') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '-1',
        'NaN',
        'Infinity',
        'x',
        '1,2',
        '0x1',
        '1 2',
        '\r',
        '#',
      ),
    },
  );
  return fc
    .record({
      header: fc.constantFrom('', 'latency_s\n', 'seconds\n', '0.1\n', 'latency,ms\n'),
      lines: fc.array(sample, { maxLength: 60 }),
      crlf: fc.boolean(),
      finalNewline: fc.boolean(),
    })
    .map(({ header, lines, crlf, finalNewline }) => {
      const text = header + lines.join('\n') + (finalNewline ? '\n' : '');
      return crlf ? text.replaceAll('\n', '\r\n') : text;
    });
}
