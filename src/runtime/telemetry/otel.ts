import { createRequire } from 'node:module';
import type * as Api from '@opentelemetry/api';

/**
 * Where `@opentelemetry/api` (every copy of major version 1) keeps what an SDK registers: a
 * global object under this symbol with a `trace`, `metrics`, `propagation` or `context` entry
 * once one is registered. It is the API's contract between its copies, stable across 1.x.
 */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

type OtelGlobal = { readonly trace?: unknown; readonly metrics?: unknown } | undefined;

/** `@opentelemetry/api` once loaded; null where it is not installed (it is an optional peer). */
let api: typeof Api | null | undefined;

function loadApi(): typeof Api | null {
  if (api !== undefined) return api;
  try {
    api = createRequire(import.meta.url)('@opentelemetry/api') as typeof Api;
  } catch {
    api = null;
  }
  return api;
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
 * The OpenTelemetry the application registered, or undefined when it registered none (or the API
 * is not installed): then difftry makes no span and records no metric, and the check costs two
 * property reads a call. The API itself is loaded on the first call that finds a provider.
 */
export function activeOtel(): ActiveOtel | undefined {
  const registered = (globalThis as Record<symbol, OtelGlobal>)[OTEL_GLOBAL];
  if (registered === undefined) return undefined;
  const tracing = registered.trace !== undefined;
  const metering = registered.metrics !== undefined;
  if (!tracing && !metering) return undefined;
  const loaded = loadApi();
  return loaded === null ? undefined : { api: loaded, tracing, metering };
}
