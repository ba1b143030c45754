import type { Registry } from 'prom-client';
import { SpecError } from '../config/SpecError.js';
import type { SidecarConfig, SidecarConfigInput } from '../config/sidecarSchema.js';
import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import type { RandomSource } from '../model/random.js';
import type { Clock } from '../policy/Clock.js';
import { systemClock } from '../policy/Clock.js';
import { type ClassOptions, classTable } from '../policy/classes/ClassTable.js';
import { classHeaderVariant } from '../policy/request/classHeaderVariant.js';
import type { TelemetryProviders } from '../runtime/telemetry/otel.js';
import { adminEndpoints } from './adminEndpoints.js';
import { type EdgeRule, edgeClassifier } from './edgeRules.js';
import type { Listener, RequestHandler } from './httpListener.js';
import type { Inbound } from './inbound.js';
import type { Outbound } from './outbound.js';
import type { SidecarHeaderNames } from './requestHead.js';
import type { ListenerLabel } from './sidecarMetrics.js';
import type { SidecarTracing } from './sidecarTracing.js';
import { peerCheck, peerHeaderValue } from './trust.js';

/** Options of {@link startSidecar}: what a config file cannot say. */
export interface SidecarOptions {
  /**
   * Milliseconds, for the retry policies and deadlines; default the wall clock.
   * @default systemClock (the wall clock)
   */
  readonly clock?: Clock;
  /**
   * Uniforms in [0, 1) for backoff jitter; default `Math.random`.
   * @default Math.random
   */
  readonly random?: RandomSource;
  /**
   * Where the sidecar reports a handler that threw (one line each); default nowhere.
   * @default none (nothing is logged)
   */
  readonly log?: (line: string) => void;
  /**
   * Where `identity.tokenEnv` and edge rules' `valueEnv` are looked up; default `process.env`.
   * @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * How messages name the config (its file); default `sidecar config`.
   * @default 'sidecar config'
   */
  readonly source?: string;
  /**
   * OpenTelemetry providers of the host's to record the sidecar's spans with (its server spans
   * and its attempts), where the config has no `telemetry` of its own (which exports over OTLP).
   * @default none: the sidecar records spans only when its config has `telemetry`
   */
  readonly telemetry?: TelemetryProviders;
}

/** A running sidecar. */
export interface SidecarHandle {
  /** The service this sidecar stands beside. */
  readonly service: string;
  /** `http://host:port` of the inbound listener, if any (port 0 resolved). */
  readonly inboundUrl?: string;
  /** `http://host:port` of the outbound listener, if any. */
  readonly outboundUrl?: string;
  /** `http://host:port` of the admin listener, if configured. */
  readonly adminUrl?: string;
  /** The sidecar's own Prometheus registry (also served at `/metrics`). */
  readonly registry: Registry;
  /**
   * The admission gate's occupancy now (inbound only): requests running in the application,
   * waiting for a place, and still sending their bodies (which hold neither).
   */
  admission():
    | { readonly running: number; readonly queued: number; readonly uploading: number }
    | undefined;
  /**
   * Graceful shutdown: stops accepting connections (new requests on open ones get 503 and
   * `Connection: close`, `/healthz` says `draining`), waits for the requests in flight (queued
   * ones included) up to `graceMs` (default the config's `shutdownGraceMs`), then closes every
   * connection and pool. Calling it again returns the same promise.
   */
  close(options?: { readonly graceMs?: number }): Promise<void>;
}

/**
 * Starts a DiffTry sidecar from its config (validated here; a parsed file or an object built in
 * code): the inbound listener (admission and classification in front of the local application),
 * the outbound listener (the application's calls, forwarded with DiffTry retries and per-try
 * timeouts), and `/metrics` and `/healthz` (on `admin.listen`, else the outbound listener, else
 * the inbound one). Resolves once every listener is listening.
 *
 * @throws {SpecError} for an invalid config or an environment variable it names that is not set;
 *   the listen error (`EADDRINUSE`, …) if a port is taken (nothing is left listening).
 * @example
 * ```ts
 * const sidecar = await startSidecar({
 *   service: 'frontend',
 *   classes: [{ name: 'high', retries: 5 }, { name: 'low', retries: 1 }],
 *   inbound: { listen: '127.0.0.1:0', app: 'http://127.0.0.1:8080', concurrency: 1, capacity: 50 },
 *   outbound: {
 *     listen: '127.0.0.1:0',
 *     upstreams: [{ name: 'search', url: 'http://127.0.0.1:9001', timeoutMs: 250 }],
 *   },
 * });
 * // the application calls `${sidecar.outboundUrl}/search/find?q=1`
 * await sidecar.close({ graceMs: 5000 });
 * ```
 */
export async function startSidecar(
  config: SidecarConfigInput | SidecarConfig,
  options: SidecarOptions = {},
): Promise<SidecarHandle> {
  // What only a running sidecar needs (the config schema with zod and yaml, prom-client, undici,
  // the retry engine, node:http) is loaded here, on the first start, never by
  // `import 'difftry/mesh'`: the entry also serves the pure decisions, which need none of it.
  const [
    { checkSidecarConfig, parseEdgeValueList },
    { parseListen },
    { createSidecarMetrics },
    { startListener },
    { createOutbound },
    { createInbound },
    { hostSidecarTracing, startSidecarTracing },
  ] = await Promise.all([
    import('../config/parseSidecarConfig.js'),
    import('../config/sidecarSchema.js'),
    import('./sidecarMetrics.js'),
    import('./httpListener.js'),
    import('./outbound.js'),
    import('./inbound.js'),
    import('./sidecarTracing.js'),
  ]);
  const source = options.source ?? 'sidecar config';
  const spec = checkSidecarConfig(config, source);
  const env = options.env ?? process.env;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const log = options.log ?? (() => {});
  const fromEnv = (path: string, name: string, what: string): string => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    throw SpecError.of({
      code: 'DIFFTRY_SPEC_INVALID',
      file: source,
      path,
      expected: `a set environment variable (${what})`,
      problem: `environment variable ${name} is not set, expected ${what}`,
    });
  };

  const token =
    spec.identity === undefined
      ? undefined
      : fromEnv('identity.tokenEnv', spec.identity.tokenEnv, 'the mesh token');
  const headerNames: SidecarHeaderNames = {
    classHeader: spec.header.toLowerCase(),
    deadlineHeader: spec.limits.deadlineHeader.toLowerCase(),
    peerHeader: (spec.identity?.header ?? 'x-difftry-peer').toLowerCase(),
  };
  const classes = classTable(
    Object.fromEntries(spec.classes.map((c) => [c.name, { retries: c.retries } as ClassOptions])),
    spec.defaultClass ?? (spec.classes[spec.classes.length - 1]?.name as string),
  );

  let draining = false;
  const listeners = new Map<ListenerLabel, Listener>();
  let outbound: Outbound | undefined;
  let inbound: Inbound | undefined;
  const metrics = createSidecarMetrics({
    service: spec.service,
    classes: classes.names,
    upstreams: spec.outbound?.upstreams.map((u) => u.name) ?? [],
    inbound: spec.inbound !== undefined,
    gauges: {
      timeoutMs: (upstream, className) => outbound?.timeoutMs(upstream, className),
      admission: () => ({ running: inbound?.gate.active ?? 0, queued: inbound?.gate.queued ?? 0 }),
      inFlight: (listener) => listeners.get(listener)?.inFlight,
    },
  });
  const serveAdmin = adminEndpoints(metrics.registry, () => draining);
  const adminOn: ListenerLabel =
    spec.admin !== undefined ? 'admin' : spec.outbound !== undefined ? 'outbound' : 'inbound';

  // Tracing: the config's own OTLP export, else the host's providers, else none.
  const tracing: SidecarTracing | undefined =
    spec.telemetry !== undefined
      ? await startSidecarTracing(spec.telemetry, spec.service)
      : options.telemetry !== undefined
        ? await hostSidecarTracing(options.telemetry)
        : undefined;

  if (spec.outbound !== undefined) {
    outbound = createOutbound({
      config: { ...spec, outbound: spec.outbound },
      clock,
      random,
      metrics,
      ...(token !== undefined && {
        identity: { header: headerNames.peerHeader, value: peerHeaderValue(spec.service, token) },
      }),
      ...(adminOn === 'outbound' && { serveAdmin }),
      ...(tracing !== undefined && { tracing }),
    });
  }
  if (spec.inbound !== undefined) {
    const { edge, trust } = spec.inbound;
    const rules = edge?.rules.map(
      (rule, i): EdgeRule => ({
        ...(rule.path !== undefined && { path: rule.path }),
        ...(rule.method !== undefined && { method: rule.method }),
        ...(rule.header !== undefined && { header: rule.header }),
        ...(rule.value !== undefined && { values: [rule.value] }),
        ...(rule.valueEnv !== undefined && {
          values: parseEdgeValueList(
            fromEnv(`inbound.edge.rules[${i}].valueEnv`, rule.valueEnv, 'the values to match'),
            { file: source, path: `inbound.edge.rules[${i}].valueEnv`, variable: rule.valueEnv },
          ),
        }),
        class: rule.class,
      }),
    );
    inbound = createInbound({
      service: spec.service,
      inbound: spec.inbound,
      limits: spec.limits,
      classHeader: headerNames.classHeader,
      classes,
      ...(rules !== undefined && { edge: edgeClassifier(rules, edge?.default) }),
      ...(token !== undefined &&
        trust !== undefined && { peer: peerCheck({ peers: trust.peers, token }) }),
      clock,
      metrics,
      ...(adminOn === 'inbound' && { serveAdmin }),
      ...(tracing !== undefined && { tracing }),
    });
  }

  // Before the inbound listener classifies and forwards a request, it drops the headers an
  // application might read as the class header (`x_priority`, `X_PRIORITY`): the class it sets
  // must be the only one the application can see. See classHeaderVariant.
  const spoofsClass = classHeaderVariant(headerNames.classHeader);
  const withoutClassHeaderVariants =
    (handle: RequestHandler): RequestHandler =>
    (req, res, head) => {
      for (const name of Object.keys(head.headers)) {
        if (spoofsClass(name)) delete head.headers[name];
      }
      handle(req, res, head);
    };

  const start = async (name: ListenerLabel, listen: string | number, handle: RequestHandler) => {
    const listener = await startListener({
      name,
      address: parseListen(listen),
      limits: spec.limits,
      headerNames,
      metrics,
      handle,
      draining: () => draining,
      log,
    });
    listeners.set(name, listener);
  };
  try {
    if (spec.admin !== undefined) {
      await start('admin', spec.admin.listen, (req, res) => {
        if (!serveAdmin(req, res)) res.writeHead(404).end();
      });
    }
    if (outbound !== undefined && spec.outbound !== undefined) {
      await start('outbound', spec.outbound.listen, outbound.handle);
    }
    if (inbound !== undefined && spec.inbound !== undefined) {
      await start('inbound', spec.inbound.listen, withoutClassHeaderVariants(inbound.handle));
    }
  } catch (error) {
    await Promise.all([...listeners.values()].map((listener) => listener.destroy()));
    await Promise.all([outbound?.close(), inbound?.close(), tracing?.shutdown()]);
    throw error;
  }

  let closing: Promise<void> | undefined;
  const shutdown = async (graceMs: number) => {
    draining = true;
    const all = [...listeners.values()];
    for (const listener of all) listener.stopAccepting();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(all.map((listener) => listener.idle())),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    await Promise.all(all.map((listener) => listener.destroy()));
    await Promise.all([outbound?.close(), inbound?.close()]);
    // The spans of the last requests go out before the sidecar is gone.
    await tracing?.shutdown();
  };

  return {
    service: spec.service,
    ...(listeners.has('inbound') && { inboundUrl: listeners.get('inbound')?.url }),
    ...(listeners.has('outbound') && { outboundUrl: listeners.get('outbound')?.url }),
    ...(listeners.has('admin') && { adminUrl: listeners.get('admin')?.url }),
    registry: metrics.registry,
    admission: () =>
      inbound === undefined
        ? undefined
        : {
            running: inbound.gate.active,
            queued: inbound.gate.queued,
            uploading: inbound.uploading,
          },
    close(closeOptions = {}) {
      const graceMs = closeOptions.graceMs ?? spec.shutdownGraceMs;
      if (!(graceMs >= 0)) throw new InvalidArgumentError(`graceMs should be ≥ 0, got ${graceMs}`);
      closing ??= shutdown(graceMs);
      return closing;
    },
  };
}
