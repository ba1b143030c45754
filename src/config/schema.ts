import { z } from 'zod';
import type { BackoffDescription } from '../model/backoff/BackoffDescription.js';
import { MODEL_NAMES } from '../model/phi/Phi.js';
import { reportIssue } from './customIssue.js';
import { className, edgeSchema } from './edgeSchema.js';
import { described } from './fieldMeta.js';
import { formatValue } from './formatValue.js';

/** The most retries a class may have at one hop. */
export const MAX_RETRIES = 100;

const oneOf = (values: readonly string[]): string => `one of ${values.join(', ')}`;

/** A strict object (unknown keys are errors, so typos are caught) with its description. */
function strictObject<Shape extends z.ZodRawShape>(shape: Shape, expected: string) {
  return described(z.strictObject(shape), expected);
}

const positiveMs = () => described(z.number().positive(), 'a positive number', 'ms');
const nonEmptyName = () => described(z.string().min(1), 'a non-empty string');
const retryLimit = () =>
  described(
    z.number().int().min(0).max(MAX_RETRIES),
    `an integer from 0 to ${MAX_RETRIES}`,
    'retries after the first attempt',
  );

/** φ: `fluid`, `mm1m` or `mixed`. */
export const modelNameSchema = described(z.enum(MODEL_NAMES), oneOf(MODEL_NAMES));

const JITTERS = ['none', 'full', 'equal', 'decorrelated'] as const;

const exponentialBackoffSchema = described(
  z
    .strictObject({
      kind: z.literal('exponential'),
      baseMs: positiveMs(),
      factor: described(z.number().min(1), 'a number ≥ 1', 'growth per retry').optional(),
      maxMs: positiveMs().optional(),
      jitter: described(z.enum(JITTERS), oneOf(JITTERS)).optional(),
    })
    .superRefine((backoff, ctx) => {
      if (backoff.maxMs === undefined || backoff.maxMs >= backoff.baseMs) return;
      const expected = `a number ≥ baseMs (${backoff.baseMs})`;
      reportIssue(ctx, {
        path: ['maxMs'],
        problem: `expected ${expected}, got ${formatValue(backoff.maxMs)}`,
        expected,
      });
    }),
  'an exponential backoff: a mapping with baseMs',
);

/**
 * The retry delay after a rejected attempt; its output is exactly a {@link BackoffDescription}.
 * All delays in milliseconds.
 */
export const backoffSchema = described(
  z.discriminatedUnion('kind', [
    strictObject(
      {
        kind: z.literal('constant'),
        delayMs: described(z.number().min(0), 'a number ≥ 0', 'ms'),
      },
      'a constant backoff: a mapping with delayMs',
    ),
    exponentialBackoffSchema,
    strictObject(
      { kind: z.literal('random'), meanMs: positiveMs() },
      'a random backoff: a mapping with meanMs',
    ),
  ]),
  'a backoff: a mapping with kind constant, exponential or random',
);

/**
 * Holds only when `From` is assignable to `To`: a compile-time proof, used below, that the
 * schema produces the backoff the rest of difftry consumes.
 */
type Assignable<From extends To, To> = From;

/** A backoff as parsed from a network file: the shared {@link BackoffDescription}. */
export type BackoffSpec = Assignable<z.output<typeof backoffSchema>, BackoffDescription>;

const SCV_UNIT = 'squared coefficient of variation';

/** The service-time distribution; its mean is always 1/capacity. Default: exponential. */
export const serviceTimeSchema = described(
  z.discriminatedUnion('dist', [
    strictObject({ dist: z.literal('exponential') }, 'an exponential service time'),
    strictObject({ dist: z.literal('deterministic') }, 'a deterministic service time'),
    strictObject(
      {
        dist: z.literal('hyperexponential'),
        scv: described(z.number().gt(1), 'a number > 1', SCV_UNIT),
      },
      'a hyperexponential service time: a mapping with scv',
    ),
    strictObject(
      {
        dist: z.literal('lognormal'),
        scv: described(z.number().positive(), 'a positive number', SCV_UNIT),
      },
      'a lognormal service time: a mapping with scv',
    ),
  ]),
  'a service-time distribution: a mapping with dist exponential, deterministic, hyperexponential or lognormal',
);

/** A class name used as a reference; the rules check that the class is declared. */
const classRef = () => described(z.string(), 'a class name');
/** A service name used as a reference; the rules check that the service is declared. */
const serviceRef = () => described(z.string(), 'a service name');

/** After a request succeeds at its service, it goes on to `to` with probability `p`. */
export const routeSchema = strictObject(
  {
    to: serviceRef(),
    p: described(z.number().min(0).max(1), 'a probability in [0, 1]'),
    class: classRef().optional(),
  },
  'a route: a mapping with to and p',
);

const CALL_MODES = ['sequential', 'parallel'] as const;

/** A request at its service calls `to`, `n` times; it succeeds only if every call does. */
export const callSchema = strictObject(
  {
    to: serviceRef(),
    n: described(z.number().int().min(1), 'an integer ≥ 1', 'calls per request').default(1),
    class: classRef().optional(),
    mode: described(z.enum(CALL_MODES), oneOf(CALL_MODES)).default('sequential'),
  },
  'a call: a mapping with to',
);

/**
 * One kind of request a service serves (an endpoint): with probability `p` a request makes these
 * calls, after the service's own `calls`. The branches of a service exclude each other; with
 * probability 1 − Σp a request makes none of them.
 */
export const branchSchema = strictObject(
  {
    name: described(z.string(), 'a string').optional(),
    p: described(z.number().min(0).max(1), 'a probability in [0, 1]'),
    calls: described(z.array(callSchema).min(1), 'a non-empty list of calls'),
  },
  'a branch: a mapping with p and calls',
);

/** A priority class: its retry limit k and, for the simulator and the runtime, its retry delay. */
export const classSchema = strictObject(
  {
    name: className(),
    retries: retryLimit(),
    backoff: backoffSchema.optional(),
    timeoutMs: described(z.number().positive(), 'a positive number', 'ms per attempt').optional(),
    weight: described(z.number().positive(), 'a positive number', 'value of one request').default(
      1,
    ),
  },
  'a class: a mapping with name and retries',
);

/** One service: an M/M/1/m queue with capacity μ and system capacity m. */
export const serviceSchema = described(
  z
    .strictObject({
      name: nonEmptyName(),
      capacity: described(z.number().positive(), 'a positive number', 'requests/s'),
      queue: described(
        z.number().int().min(1),
        'an integer ≥ 1',
        'the most requests in the system',
      ),
      arrivals: described(
        z.record(z.string(), described(z.number().min(0), 'a number ≥ 0', 'requests/s')),
        'a mapping from class name to arrival rate',
        'requests/s',
      ).default({}),
      retries: described(
        z.record(z.string(), retryLimit()),
        'a mapping from class name to retry limit',
      ).optional(),
      timeouts: described(
        z.record(
          z.string(),
          described(z.number().positive(), 'a positive number', 'ms per attempt'),
        ),
        'a mapping from class name to per-try timeout',
        'ms per attempt, of a call into this service',
      ).optional(),
      model: modelNameSchema.optional(),
      serviceTime: serviceTimeSchema.default({ dist: 'exponential' }),
      residual: described(z.boolean(), 'true or false').default(false),
      routes: described(z.array(routeSchema), 'a list of routes').optional(),
      calls: described(z.array(callSchema), 'a list of calls').optional(),
      branches: described(z.array(branchSchema), 'a list of branches').optional(),
    })
    .superRefine((service, ctx) => {
      if (service.routes === undefined) return;
      for (const field of ['calls', 'branches'] as const) {
        if (service[field] === undefined) continue;
        reportIssue(ctx, {
          path: [field],
          problem: `a service has routes or ${field}, not both`,
          expected: `routes or ${field}, not both`,
          at: 'key',
        });
      }
    }),
  'a service: a mapping with name, capacity and queue',
);

/**
 * A network file's fields, each checked on its own; `networkSpecSchema` adds the rules that span
 * fields.
 */
export const networkObjectSchema = strictObject(
  {
    name: described(z.string(), 'a string').optional(),
    description: described(z.string(), 'a string').optional(),
    model: modelNameSchema.default('mixed'),
    backoff: backoffSchema.optional(),
    classes: described(z.array(classSchema).min(1), 'a non-empty list of classes'),
    services: described(z.array(serviceSchema).min(1), 'a non-empty list of services'),
    // How a deployment classes external requests (every service with arrivals is an edge):
    // read by `difftry mesh`, not by the analysis.
    edge: edgeSchema.optional(),
  },
  'a network: a mapping with classes and services',
);

/** A blocking-probability model: `fluid`, `mm1m` or `mixed`. */
export type ModelName = z.output<typeof modelNameSchema>;

/**
 * A parsed, valid network file, with defaults applied: `model` `'mixed'`, class `weight` 1,
 * service `arrivals` `{}`, `serviceTime` `{ dist: 'exponential' }`, `residual` false, call `n` 1
 * and `mode` `'sequential'`. Rates are in requests per second, delays in milliseconds. The first
 * class is the highest priority.
 */
export type NetworkSpec = z.output<typeof networkObjectSchema>;

/** A network file as written, before defaults are applied (what a generator produces). */
export type NetworkSpecInput = z.input<typeof networkObjectSchema>;

/** A priority class of a {@link NetworkSpec}. */
export type ClassSpec = z.output<typeof classSchema>;

/** A service of a {@link NetworkSpec}. */
export type ServiceSpec = z.output<typeof serviceSchema>;

/** A probabilistic route from one service to the next. */
export type RouteSpec = z.output<typeof routeSchema>;

/** A call from one service to a child in call-graph mode. */
export type CallSpec = z.output<typeof callSchema>;

/** One endpoint of a calling service: its probability and its calls. */
export type BranchSpec = z.output<typeof branchSchema>;

/** A service-time distribution (mean 1/capacity). */
export type ServiceTimeSpec = z.output<typeof serviceTimeSchema>;
