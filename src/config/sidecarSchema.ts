import { z } from 'zod';
import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import {
  createTimeoutStrategy,
  TIMEOUT_KINDS,
  type TimeoutStrategyDescription,
} from '../policy/timeouts/createTimeoutStrategy.js';
import { type CustomIssue, reportIssue } from './customIssue.js';
import {
  checkEdgeRules,
  classKey,
  classRef,
  type EdgeConfig,
  type EdgeRuleConfig,
  edgeSchema,
  envName,
  headerName,
  pathPrefix,
  TOKEN,
} from './edgeSchema.js';
import { described } from './fieldMeta.js';
import { formatValue } from './formatValue.js';
import { backoffSchema, classSchema, MAX_RETRIES } from './schema.js';
import { telemetrySchema } from './telemetrySchema.js';

// The sidecar config (`difftry proxy --config FILE`), in the language of the network files: the
// same `classes` and `backoff`, checked by the same machinery, so an error reads the same way.
// docs/mesh.md is the reference of every field; keep the two together.

const oneOf = (values: readonly string[]): string => `one of ${values.join(', ')}`;

const nonEmptyName = () => described(z.string().min(1), 'a non-empty string');
const positiveInteger = (unit: string) =>
  described(z.number().int().min(1), 'an integer ≥ 1', unit);
const positiveMs = (unit = 'ms') => described(z.number().positive(), 'a positive number', unit);
/** The longest delay a Node timer keeps (2^31 − 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;
/** A transport timeout in whole ms (Node's server timeouts take integers only). */
const transportTimeout = (unit: string) =>
  described(
    z.number().int().min(1).max(MAX_TIMER_MS),
    `an integer from 1 to ${MAX_TIMER_MS}`,
    unit,
  );
const retryLimit = () =>
  described(
    z.number().int().min(0).max(MAX_RETRIES),
    `an integer from 0 to ${MAX_RETRIES}`,
    'retries after the first attempt',
  );

/** `host:port` (IPv6 in brackets); port 0 asks the system for a free port. */
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/** Where a listener binds: `host:port`, or a bare port on 127.0.0.1. */
export const listenSchema = described(
  z.union([
    z.number().int().min(0).max(65_535),
    // One check, so that a bad address is one problem, not one per rule it breaks.
    z.string().refine((text) => Number(HOST_PORT.exec(text)?.[2]) <= 65_535),
  ]),
  'a listen address host:port, or a port (on 127.0.0.1)',
);

/** A listen address from the config: `{ host, port }`. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * The host and port of a valid `listen` value: `'0.0.0.0:8080'`, `'[::1]:0'`, or a bare port on
 * 127.0.0.1.
 * @throws RangeError for a value the schema would refuse.
 */
export function parseListen(value: string | number): ListenAddress {
  if (typeof value === 'number') return { host: '127.0.0.1', port: value };
  const match = HOST_PORT.exec(value);
  const port = Number(match?.[2]);
  if (match === null || !(port <= 65_535)) {
    throw new InvalidArgumentError(`listen should be host:port, got ${JSON.stringify(value)}`);
  }
  return { host: (match[1] as string).replace(/^\[(.*)\]$/, '$1'), port };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === ''
    );
  } catch {
    return false;
  }
}

const httpUrl = () =>
  described(
    z.string().refine(isHttpUrl),
    'an http:// or https:// URL without credentials, query or fragment',
  );

/**
 * A per-try timeout strategy as `createTimeoutStrategy` describes it. Its options are checked by
 * `createTimeoutStrategy` itself (in the rules below), so this schema and the strategies never
 * disagree; the cast gives it the description's type, while the value stays a zod object for the
 * error messages.
 */
const timeoutStrategySchema = described(
  z.looseObject({ kind: described(z.enum(TIMEOUT_KINDS), oneOf(TIMEOUT_KINDS)) }),
  `a timeout strategy: a mapping with kind ${TIMEOUT_KINDS.join(', ')}`,
) as unknown as z.ZodType<TimeoutStrategyDescription, TimeoutStrategyDescription>;

/** One upstream service the local application calls through the outbound listener. */
export const upstreamSchema = described(
  z.strictObject({
    name: nonEmptyName(),
    url: httpUrl(),
    prefix: pathPrefix().optional(),
    hosts: described(z.array(nonEmptyName()), 'a list of host names').optional(),
    retries: described(
      z.record(z.string(), retryLimit()),
      'a mapping from class name to retry limit',
    ).optional(),
    timeouts: described(
      z.record(z.string(), positiveMs('ms per attempt')),
      'a mapping from class name to per-try timeout',
      'ms per attempt, of a call into this upstream',
    ).optional(),
    timeoutMs: positiveMs('ms per attempt').optional(),
    timeout: timeoutStrategySchema.optional(),
    deadlineMs: positiveMs('ms per call, all attempts').optional(),
    connections: positiveInteger('connections').optional(),
    headersTimeoutMs: transportTimeout(
      'ms from sending a request to its response headers',
    ).optional(),
    bodyTimeoutMs: transportTimeout('ms between two chunks of a response body').optional(),
    mesh: described(z.boolean(), 'true or false').default(true),
  }),
  'an upstream: a mapping with name and url',
);

const trustSchema = described(
  z.strictObject({
    peers: described(z.array(nonEmptyName()), 'a list of service names'),
  }),
  'a trust: a mapping with peers',
);

/** Admission in front of the local application. */
export const inboundSchema = described(
  z.strictObject({
    listen: listenSchema,
    app: httpUrl(),
    concurrency: positiveInteger('c, requests the application runs at once').default(1),
    capacity: positiveInteger('m, the most requests in the system'),
    edge: edgeSchema.optional(),
    trust: trustSchema.optional(),
    appHeadersTimeoutMs: transportTimeout(
      'ms from forwarding a request to its response headers',
    ).optional(),
    appBodyTimeoutMs: transportTimeout('ms between two chunks of a response body').optional(),
    uploads: positiveInteger('requests whose bodies are being received at once').optional(),
  }),
  'an inbound: a mapping with listen, app and capacity',
);

const outboundSchema = described(
  z.strictObject({
    listen: listenSchema,
    upstreams: described(z.array(upstreamSchema).min(1), 'a non-empty list of upstreams'),
  }),
  'an outbound: a mapping with listen and upstreams',
);

const identitySchema = described(
  z.strictObject({
    tokenEnv: envName(),
    header: headerName().default('x-difftry-peer'),
  }),
  'an identity: a mapping with tokenEnv',
);

const adminSchema = described(
  z.strictObject({ listen: listenSchema }),
  'an admin: a mapping with listen',
);

/** The defaults of `limits`, each documented in docs/mesh.md. */
export const DEFAULT_SIDECAR_LIMITS = Object.freeze({
  maxHeaderBytes: 16_384,
  maxHeaders: 100,
  maxBodyBytes: 10 * 1024 * 1024,
  replayBodyBytes: 1024 * 1024,
  deadlineHeader: 'x-difftry-deadline-ms',
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
});

/**
 * How many requests the inbound listener receives bodies for at once, by default. A request with
 * a body is read (up to `limits.replayBodyBytes`, so with the default limits at most 64 MiB held
 * at once) before it asks for an admission place; the 65th upload at once gets 503. See
 * docs/mesh.md.
 */
export const DEFAULT_INBOUND_UPLOADS = 64;

/**
 * How long a sidecar waits on an upstream (or the inbound application) that holds a call without
 * answering, when the config does not say: undici's `headersTimeout` (request sent → response
 * headers) and `bodyTimeout` (between two chunks of the response body), in ms. Undici's own 300 s
 * would let a silent upstream hold a caller for five minutes whenever no per-try timeout or
 * deadline is set; 30 s is longer than any interactive call should take (the per-try timeout and
 * the deadline remain the tools for tight bounds) and an order of magnitude shorter. See
 * docs/mesh.md.
 */
export const DEFAULT_UPSTREAM_TIMEOUTS = Object.freeze({
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
});

const limitsSchema = described(
  z.strictObject({
    maxHeaderBytes: positiveInteger('bytes').default(DEFAULT_SIDECAR_LIMITS.maxHeaderBytes),
    maxHeaders: positiveInteger('headers').default(DEFAULT_SIDECAR_LIMITS.maxHeaders),
    maxBodyBytes: described(z.number().int().min(0), 'an integer ≥ 0', 'bytes').default(
      DEFAULT_SIDECAR_LIMITS.maxBodyBytes,
    ),
    replayBodyBytes: described(z.number().int().min(0), 'an integer ≥ 0', 'bytes').default(
      DEFAULT_SIDECAR_LIMITS.replayBodyBytes,
    ),
    deadlineHeader: headerName().default(DEFAULT_SIDECAR_LIMITS.deadlineHeader),
    headersTimeoutMs: transportTimeout('ms to receive a request line and headers').default(
      DEFAULT_SIDECAR_LIMITS.headersTimeoutMs,
    ),
    requestTimeoutMs: transportTimeout('ms to receive a whole request, headers and body').default(
      DEFAULT_SIDECAR_LIMITS.requestTimeoutMs,
    ),
  }),
  'limits: a mapping',
);

const retryOnSchema = described(
  z.strictObject({
    statuses: described(
      z.array(described(z.number().int().min(100).max(599), 'an HTTP status')),
      'a list of HTTP statuses',
    ).optional(),
    errorCodes: described(z.array(nonEmptyName()), 'a list of error codes').optional(),
    timeouts: described(z.boolean(), 'true or false').optional(),
  }),
  'retryOn: a mapping with statuses, errorCodes or timeouts',
);

const sidecarObjectSchema = z.strictObject({
  service: nonEmptyName(),
  header: headerName().default('x-priority'),
  classes: described(z.array(classSchema).min(1), 'a non-empty list of classes'),
  defaultClass: classRef().optional(),
  backoff: backoffSchema.optional(),
  methods: described(
    z.array(described(z.string().regex(TOKEN), 'an HTTP method')),
    'a list of HTTP methods',
  ).optional(),
  retryOn: retryOnSchema.optional(),
  identity: identitySchema.optional(),
  inbound: inboundSchema.optional(),
  outbound: outboundSchema.optional(),
  admin: adminSchema.optional(),
  limits: limitsSchema.default({ ...DEFAULT_SIDECAR_LIMITS }),
  shutdownGraceMs: described(z.number().min(0), 'a number ≥ 0', 'ms').default(10_000),
  telemetry: telemetrySchema.optional(),
});

/**
 * The one schema of a sidecar config, with the rules that span fields (declared classes, unique
 * upstreams and routes, c ≤ m, valid timeout strategies, peers with an identity).
 */
export const sidecarConfigSchema = described(
  sidecarObjectSchema.superRefine(checkSidecarRules),
  'a sidecar config: a mapping with service, classes and inbound or outbound',
);

/** A parsed, valid sidecar config with every default applied (see docs/mesh.md). */
export type SidecarConfig = z.output<typeof sidecarObjectSchema>;
/** A sidecar config as written (what `sidecarsFromNetwork` produces and `startSidecar` takes). */
export type SidecarConfigInput = z.input<typeof sidecarObjectSchema>;
/** One upstream of the outbound listener. */
export type UpstreamConfig = z.output<typeof upstreamSchema>;
/** Admission and classification in front of the local application. */
export type InboundConfig = z.output<typeof inboundSchema>;
/** The outbound listener and its upstreams. */
export type OutboundConfig = z.output<typeof outboundSchema>;
export type { EdgeConfig, EdgeRuleConfig };
/** The peers whose class header is believed. */
export type TrustConfig = z.output<typeof trustSchema>;
/** How sidecars prove their identity to each other. */
export type IdentityConfig = z.output<typeof identitySchema>;
/** Header, body and deadline limits. */
export type SidecarLimits = z.output<typeof limitsSchema>;

type Report = (issue: CustomIssue) => void;

/** The effective path prefix of an upstream: its own, else `/NAME`. */
export function upstreamPrefix(upstream: Pick<UpstreamConfig, 'name' | 'prefix'>): string {
  return upstream.prefix ?? `/${upstream.name}`;
}

function checkSidecarRules(config: SidecarConfig, ctx: z.RefinementCtx): void {
  const report: Report = (issue) => reportIssue(ctx, issue);
  const classNames = config.classes.map((c) => c.name);
  const known = new Set(classNames);
  const expectedClass = `a declared class (${classNames.join(', ')})`;
  const checkClass = (path: PropertyKey[], name: string | undefined, at?: 'key') => {
    if (name === undefined || known.has(name)) return;
    const problem = `expected ${expectedClass}, got ${formatValue(name)}`;
    report(
      at === undefined
        ? { path, problem, expected: expectedClass }
        : { path, problem, expected: expectedClass, at },
    );
  };
  unique(
    // A class header is read in any case: `High` and `high` would be one class (classKey).
    classNames.map((name, i) => ({ key: classKey(name), path: ['classes', i, 'name'] })),
    'class name (in any case)',
    report,
  );
  checkClass(['defaultClass'], config.defaultClass);

  if (config.inbound === undefined && config.outbound === undefined) {
    report({
      path: [],
      problem: 'expected inbound, outbound or both, got neither',
      expected: 'inbound, outbound or both',
    });
  }

  const { inbound } = config;
  if (inbound !== undefined) {
    if (inbound.capacity < inbound.concurrency) {
      report({
        path: ['inbound', 'capacity'],
        problem: `expected an integer ≥ concurrency (${inbound.concurrency}), got ${inbound.capacity}`,
        expected: `an integer ≥ concurrency (${inbound.concurrency})`,
      });
    }
    if (inbound.edge !== undefined) {
      checkEdgeRules(inbound.edge, ['inbound', 'edge'], checkClass, report);
    }
    if ((inbound.trust?.peers.length ?? 0) > 0 && config.identity === undefined) {
      report({
        path: ['inbound', 'trust', 'peers'],
        problem: 'trusted peers prove who they are with the mesh token, expected identity.tokenEnv',
        expected: 'identity.tokenEnv beside trust.peers',
        at: 'key',
      });
    }
  }

  const upstreams = config.outbound?.upstreams ?? [];
  unique(
    upstreams.map((u, i) => ({ key: u.name, path: ['outbound', 'upstreams', i, 'name'] })),
    'upstream name',
    report,
  );
  unique(
    upstreams.map((u, i) => ({
      key: normalisePrefix(upstreamPrefix(u)),
      path: ['outbound', 'upstreams', i, u.prefix === undefined ? 'name' : 'prefix'],
    })),
    'upstream prefix',
    report,
  );
  unique(
    upstreams.flatMap((u, i) => [
      { key: u.name.toLowerCase(), path: ['outbound', 'upstreams', i, 'name'] },
      ...(u.hosts ?? []).map((host, j) => ({
        key: host.toLowerCase(),
        path: ['outbound', 'upstreams', i, 'hosts', j],
      })),
    ]),
    'upstream host',
    report,
    // An upstream that lists its own name among its hosts says it twice, harmlessly.
    (a, b) => a.path[2] === b.path[2],
  );
  upstreams.forEach((upstream, i) => {
    const at = ['outbound', 'upstreams', i];
    for (const field of ['retries', 'timeouts'] as const) {
      for (const name of Object.keys(upstream[field] ?? {})) {
        checkClass([...at, field, name], name, 'key');
      }
    }
    if (upstream.timeout === undefined) return;
    if (upstream.timeouts !== undefined) {
      report({
        path: [...at, 'timeout'],
        problem: 'an upstream has timeouts or timeout, not both',
        expected: 'timeouts or timeout, not both',
        at: 'key',
      });
      return;
    }
    if (upstream.timeoutMs !== undefined) {
      report({
        path: [...at, 'timeout'],
        problem: 'an upstream has timeoutMs or timeout, not both',
        expected: 'timeoutMs or timeout, not both',
        at: 'key',
      });
      return;
    }
    try {
      createTimeoutStrategy(upstream.timeout);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report({
        path: [...at, 'timeout'],
        problem: `expected a valid timeout strategy: ${message}`,
        expected: 'a valid timeout strategy',
      });
    }
  });

  if (config.limits.replayBodyBytes > config.limits.maxBodyBytes) {
    report({
      path: ['limits', 'replayBodyBytes'],
      problem: `expected at most maxBodyBytes (${config.limits.maxBodyBytes}), got ${config.limits.replayBodyBytes}`,
      expected: `at most maxBodyBytes (${config.limits.maxBodyBytes})`,
    });
  }
  // Node refuses a server whose headers timeout is longer than its whole-request timeout.
  if (config.limits.requestTimeoutMs < config.limits.headersTimeoutMs) {
    report({
      path: ['limits', 'requestTimeoutMs'],
      problem: `expected at least headersTimeoutMs (${config.limits.headersTimeoutMs}), got ${config.limits.requestTimeoutMs}`,
      expected: `at least headersTimeoutMs (${config.limits.headersTimeoutMs})`,
    });
  }
}

/** `/search/` and `/search` are the same prefix. */
export function normalisePrefix(prefix: string): string {
  return prefix.length > 1 ? prefix.replace(/\/+$/, '') : prefix;
}

function unique(
  entries: readonly { key: string; path: PropertyKey[] }[],
  what: string,
  report: Report,
  same: (a: { path: PropertyKey[] }, b: { path: PropertyKey[] }) => boolean = () => false,
): void {
  const first = new Map<string, { path: PropertyKey[] }>();
  for (const entry of entries) {
    const seen = first.get(entry.key);
    if (seen === undefined) {
      first.set(entry.key, entry);
    } else if (!same(seen, entry)) {
      report({
        path: entry.path,
        problem: `duplicate ${what} ${formatValue(entry.key)}, first at ${formatPlace(seen.path)}`,
        expected: `a unique ${what}`,
      });
    }
  }
}

function formatPlace(path: readonly PropertyKey[]): string {
  return path
    .map((segment, i) =>
      typeof segment === 'number' ? `[${segment}]` : `${i === 0 ? '' : '.'}${String(segment)}`,
    )
    .join('');
}
