import { createRequire } from 'node:module';
import type * as Api from '@opentelemetry/api';

/**
 * Where `@opentelemetry/api` (every copy of major version 1) keeps what an SDK registers: a
 * global object under this symbol with a `trace`, `metrics`, `propagation` or `context` entry
 * once one is registered. It is the API's contract between its copies, stable across 1.x.
 */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

export type OtelGlobal =
  | {
      readonly trace?: unknown;
      readonly metrics?: unknown;
      readonly context?: unknown;
      readonly propagation?: unknown;
    }
  | undefined;

/**
 * What an SDK (or anything) has registered with `@opentelemetry/api`: its `trace`, `metrics`,
 * `context` and `propagation` entries; undefined when nothing is. One read of a global.
 */
export function registeredOtel(): OtelGlobal {
  return (globalThis as Record<symbol, OtelGlobal>)[OTEL_GLOBAL];
}

/** `@opentelemetry/api` once loaded; null where it is not installed (it is an optional peer). */
let api: typeof Api | null | undefined;

/** `@opentelemetry/api`, or null where it is not installed. */
export function loadApi(): typeof Api | null {
  if (api !== undefined) return api;
  try {
    api = createRequire(import.meta.url)('@opentelemetry/api') as typeof Api;
  } catch {
    api = null;
  }
  return api;
}

/** A tracer provider, as `@opentelemetry/api`'s `TracerProvider` (typed loosely: the API is optional). */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): unknown;
}

/** A meter provider, as `@opentelemetry/api`'s `MeterProvider`. */
export interface MeterProviderLike {
  getMeter(name: string, version?: string): unknown;
}

/**
 * Providers to use instead of the globally registered ones: a host that serves several
 * services in one process (a sidecar per service, the testbed) gives each its own, with its own
 * `service.name`. Either may be left out (then the global one, if any, is used).
 */
export interface TelemetryProviders {
  readonly tracerProvider?: TracerProviderLike;
  readonly meterProvider?: MeterProviderLike;
}

/** What OpenTelemetry the application has registered, for one call. */
export interface ActiveOtel {
  readonly api: typeof Api;
  /** Whether a tracer provider is registered (spans are made). */
  readonly tracing: boolean;
  /** Whether a meter provider is registered (metrics are recorded). */
  readonly metering: boolean;
}

/**
 * The OpenTelemetry the application registered (or the host gives in `providers`), or undefined
 * when there is none (or the API is not installed): then difftry makes no span and records no
 * metric, and the check costs two property reads a call. The API itself is loaded on the first
 * call that finds a provider.
 */
export function activeOtel(providers?: TelemetryProviders): ActiveOtel | undefined {
  const registered = registeredOtel();
  if (registered === undefined && providers === undefined) return undefined;
  const tracing = registered?.trace !== undefined || providers?.tracerProvider !== undefined;
  const metering = registered?.metrics !== undefined || providers?.meterProvider !== undefined;
  if (!tracing && !metering) return undefined;
  const loaded = loadApi();
  return loaded === null ? undefined : { api: loaded, tracing, metering };
}
