import fc from 'fast-check';
import { stringify } from 'yaml';
import { compactNetwork } from '../../src/config/generators/compactNetwork.js';
import type { EdgeForm } from '../../src/config/generators/GeneratorOptions.js';
import { DGG_SERVICE_RANGE } from '../../src/config/generators/generateDgg.js';
import { generateNetwork, type NetworkKind } from '../../src/config/generators/generateNetwork.js';
import { parseNetwork } from '../../src/config/parseNetwork.js';
import type { NetworkSpec } from '../../src/config/schema.js';

// Random network files for the deployment-equivalence property: a generated network (every kind,
// both forms), with per-class timeouts and per-service overrides of retries and timeouts drawn on
// top, written as YAML and parsed back, so that every draw is a valid file.

const MAX_CLASSES = 4;
const MAX_SERVICES = 8;

/** What one draw chooses; fast-check shrinks it towards fewer overrides and smaller networks. */
export interface NetworkDraw {
  readonly kind: NetworkKind;
  readonly form: EdgeForm;
  readonly services: number;
  readonly classes: number;
  readonly seed: number;
  /** Per class, its `timeoutMs`, or none. */
  readonly classTimeouts: readonly (number | undefined)[];
  /** Per service, per class, the service's `retries` entry, or none. */
  readonly retries: readonly (readonly (number | undefined)[])[];
  /** Per service, per class, the service's `timeouts` entry, or none. */
  readonly timeouts: readonly (readonly (number | undefined)[])[];
  /** The index of the class `edge.default` names, or none. */
  readonly edgeDefault: number | undefined;
}

/** A drawn network file: the draw, the parsed network and its YAML. */
export interface DrawnNetwork {
  readonly draw: NetworkDraw;
  readonly network: NetworkSpec;
  readonly yaml: string;
}

/** Mostly nothing (where fast-check shrinks to), sometimes a value of `arbitrary`. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, weight: number): fc.Arbitrary<T | undefined> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 10 - weight, arbitrary: fc.constant(undefined) },
    { weight, arbitrary },
  );
}

/** Per service, per class, an optional value. */
const perServiceClass = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.array(fc.array(sometimes(arbitrary, 3), { minLength: MAX_CLASSES, maxLength: MAX_CLASSES }), {
    minLength: MAX_SERVICES,
    maxLength: MAX_SERVICES,
  });

/** Whole milliseconds, from 1 ms to minutes (past GEP-2257's 5 digits of ms). */
export const wholeMs: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 1, max: 2000 }),
  fc.integer({ min: 1, max: 250_000 }),
);

/** Milliseconds with up to three decimals (microseconds), from 1 ms to 5 s. */
export const fractionalMs: fc.Arbitrary<number> = fc
  .integer({ min: 1000, max: 5_000_000 })
  .map((us) => us / 1000);

/**
 * The draws of random network files (see {@link networkOf}), per-try timeouts drawn from
 * `timeoutMs`: kinds mubench, dgg and cyclic (routes only), 4–8 services, 2–4 classes.
 */
export function networkDraws(timeoutMs: fc.Arbitrary<number>): fc.Arbitrary<NetworkDraw> {
  return fc.record({
    kind: fc.constantFrom<NetworkKind>('mubench', 'dgg', 'cyclic'),
    form: fc.constantFrom<EdgeForm>('routes', 'calls'),
    services: fc.integer({ min: 4, max: MAX_SERVICES }),
    classes: fc.integer({ min: 2, max: MAX_CLASSES }),
    seed: fc.integer({ min: 0, max: 1_000_000 }),
    classTimeouts: fc.array(sometimes(timeoutMs, 5), {
      minLength: MAX_CLASSES,
      maxLength: MAX_CLASSES,
    }),
    retries: perServiceClass(fc.integer({ min: 0, max: 6 })),
    timeouts: perServiceClass(timeoutMs),
    edgeDefault: sometimes(fc.nat({ max: MAX_CLASSES - 1 }), 3),
  });
}

/** The entries of `values` that are set, keyed by class name. */
function byClass(
  names: readonly string[],
  values: readonly (number | undefined)[] | undefined,
): Record<string, number> | undefined {
  const entries = names.flatMap((name, p) => {
    const value = values?.[p];
    return value === undefined ? [] : [[name, value] as const];
  });
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** The network file of a draw, parsed back from its YAML. */
export function networkOf(draw: NetworkDraw): DrawnNetwork {
  const kind = draw.kind;
  const base = generateNetwork(kind, {
    services: kind === 'dgg' ? Math.min(draw.services, DGG_SERVICE_RANGE[1]) : draw.services,
    classes: draw.classes,
    seed: draw.seed,
    form: kind === 'cyclic' ? 'routes' : draw.form,
  });
  const names = base.classes.map((c) => c.name);
  const file = compactNetwork(base);
  const retries = (i: number) => byClass(names, draw.retries[i]);
  const timeouts = (i: number) => byClass(names, draw.timeouts[i]);
  const document = {
    ...file,
    classes: file.classes.map((c, p) => {
      const timeoutMs = draw.classTimeouts[p];
      return timeoutMs === undefined ? c : { ...c, timeoutMs };
    }),
    services: file.services.map((service, i) => ({
      ...service,
      ...(retries(i) !== undefined && { retries: retries(i) }),
      ...(timeouts(i) !== undefined && { timeouts: timeouts(i) }),
    })),
    ...(draw.edgeDefault !== undefined && {
      edge: { default: names[draw.edgeDefault % names.length] },
    }),
  };
  const yaml = stringify(document);
  return { draw, network: parseNetwork(yaml, 'random.yaml'), yaml };
}
