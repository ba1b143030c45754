import fc from 'fast-check';

/** A JSON-like value, as a YAML or JSON file parses to. */
export type Document = null | boolean | number | string | Document[] | { [key: string]: Document };

/** A place in a document: the keys and indices leading to it from the root. */
export type DocumentPath = readonly (string | number)[];

/**
 * One change to a document, at the node `pick` selects (modulo the number of nodes, so every
 * generated change applies to every document and shrinks towards the root).
 */
export type Mutation =
  | { readonly kind: 'replace'; readonly pick: number; readonly value: Document }
  | { readonly kind: 'delete'; readonly pick: number }
  | { readonly kind: 'duplicate'; readonly pick: number }
  | { readonly kind: 'rename'; readonly pick: number; readonly key: string }
  | { readonly kind: 'add'; readonly pick: number; readonly key: string; readonly value: Document };

/** Keys a network or sidecar file has, so an added or renamed key is sometimes a real one. */
const KNOWN_KEYS = [
  'name',
  'classes',
  'services',
  'capacity',
  'queue',
  'arrivals',
  'routes',
  'calls',
  'retries',
  'backoff',
  'timeoutMs',
  'model',
  'mode',
  'to',
  'p',
  'class',
  'high',
  'low',
  'weight',
  'serviceTime',
  'residual',
  'kind',
  'inbound',
  'outbound',
  'edge',
  'rules',
  'default',
  'trust',
  'peers',
  'identity',
  'tokenEnv',
  'header',
  'path',
  'valueEnv',
  'value',
  'upstreams',
  'limits',
  'concurrency',
  'deadlineMs',
];

/** A key: a known one (any case), or any short string. */
export const keyArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...KNOWN_KEYS),
  fc.constantFrom(...KNOWN_KEYS).map((key) => key.toUpperCase()),
  fc.string({ maxLength: 6 }),
);

/**
 * Values that break files in interesting ways: the edges of the numbers (0, -0, tiny, huge, NaN,
 * infinities, non-integers where integers go), strings that look like numbers or names, empty
 * containers and wrong types.
 * @param largest the largest finite magnitude a number may have (simulations stay short below it).
 */
export function oddValueArbitrary(largest = Number.MAX_VALUE): fc.Arbitrary<Document> {
  const numbers = [0, -0, 1, -1, 0.5, 1e-9, 2, 3, 7, 100, 1e3, 1e6, 1e12, 1e308, Number.MAX_VALUE]
    .filter((n) => Math.abs(n) <= largest)
    .concat([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...numbers) },
    { weight: 2, arbitrary: fc.double({ min: -largest, max: largest, noNaN: true }) },
    { weight: 2, arbitrary: fc.integer({ min: -3, max: Math.min(200, largest) }) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        'high',
        'low',
        'HIGH',
        'frontend',
        'search',
        '1',
        '-1',
        '0x10',
        '1e3',
        'NaN',
        'Infinity',
        'null',
        'true',
        '~',
        'exponential',
        'constant',
        'random',
        'fluid',
        'mm1m',
        'mixed',
        'calls',
        'routes',
        '/',
        '/premium',
        'x-api-key',
        '127.0.0.1:0',
        'http://127.0.0.1:1',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Document>(null, true, false, [], {}, [null], { x: 1 }),
    },
  );
}

/**
 * Values a file could well hold where another was: small positive rates, capacities and
 * probabilities, retry limits, declared class names, so a mutated file is often still valid and
 * the run goes past the schema into the model and the simulator.
 */
export function plausibleValueArbitrary(): fc.Arbitrary<Document> {
  return fc.oneof(
    fc.double({ min: 0.01, max: 500, noNaN: true }),
    fc.integer({ min: 0, max: 8 }),
    fc.double({ min: 0, max: 1, noNaN: true }),
    fc.constantFrom('high', 'low'),
  );
}

/** A list of up to `maxLength` mutations drawing values from `values`. */
export function mutationsArbitrary(
  values: fc.Arbitrary<Document>,
  maxLength = 4,
): fc.Arbitrary<Mutation[]> {
  const pick = fc.nat({ max: 10_000 });
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({ kind: fc.constant('replace' as const), pick, value: values }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('duplicate' as const), pick }) },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('rename' as const), pick, key: keyArbitrary }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('add' as const),
        pick,
        key: keyArbitrary,
        value: values,
      }),
    },
  );
  return fc.array(mutation, { minLength: 1, maxLength });
}

/** Every node of `document` with its path, the root first, depth first. */
export function documentPaths(document: Document, path: DocumentPath = []): DocumentPath[] {
  const paths: DocumentPath[] = [path];
  if (Array.isArray(document)) {
    document.forEach((item, i) => {
      paths.push(...documentPaths(item, [...path, i]));
    });
  } else if (document !== null && typeof document === 'object') {
    for (const [key, value] of Object.entries(document)) {
      paths.push(...documentPaths(value, [...path, key]));
    }
  }
  return paths;
}

/**
 * `document` with `mutations` applied in order (a deep copy; the input is unchanged). Paths in
 * `frozen` (and below them) are left alone: the caller keeps them safe (listen addresses).
 */
export function mutateDocument(
  document: Document,
  mutations: readonly Mutation[],
  frozen: (path: DocumentPath) => boolean = () => false,
): Document {
  let result = structuredClone(document);
  for (const mutation of mutations) {
    const paths = documentPaths(result).filter((path) => !frozen(path));
    if (paths.length === 0) break;
    const path = paths[mutation.pick % paths.length] as DocumentPath;
    result = applyAt(result, path, mutation);
  }
  return result;
}

function applyAt(root: Document, path: DocumentPath, mutation: Mutation): Document {
  if (path.length === 0) {
    if (mutation.kind === 'replace') return mutation.value;
    if (mutation.kind === 'add' && isObject(root))
      return { ...root, [mutation.key]: mutation.value };
    return root;
  }
  const parent = nodeAt(root, path.slice(0, -1));
  const key = path[path.length - 1] as string | number;
  if (Array.isArray(parent) && typeof key === 'number') {
    if (mutation.kind === 'replace') parent[key] = mutation.value;
    else if (mutation.kind === 'delete') parent.splice(key, 1);
    else if (mutation.kind === 'duplicate')
      parent.splice(key, 0, structuredClone(parent[key]) as Document);
    else if (mutation.kind === 'add') {
      const node = parent[key];
      if (isObject(node)) node[mutation.key] = mutation.value;
      else parent.push(mutation.value);
    }
  } else if (isObject(parent) && typeof key === 'string') {
    if (mutation.kind === 'replace') parent[key] = mutation.value;
    else if (mutation.kind === 'delete') delete parent[key];
    else if (mutation.kind === 'rename') {
      const value = parent[key] as Document;
      delete parent[key];
      parent[mutation.key] = value;
    } else if (mutation.kind === 'duplicate') {
      const node = parent[key];
      if (Array.isArray(node) && node.length > 0) node.push(structuredClone(node[0]) as Document);
    } else if (mutation.kind === 'add') {
      const node = parent[key];
      if (isObject(node)) node[mutation.key] = mutation.value;
      else if (Array.isArray(node)) node.push(mutation.value);
    }
  }
  return root;
}

function nodeAt(root: Document, path: DocumentPath): Document {
  let node = root;
  for (const key of path) {
    node = (node as Record<string | number, Document>)[key] as Document;
  }
  return node;
}

function isObject(value: Document | undefined): value is { [key: string]: Document } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
