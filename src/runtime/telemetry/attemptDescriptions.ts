import type { AttemptDescription, TelemetryAttributes } from './CallTelemetry.js';
import { activeOtel, loadApi, registeredOtel, type TelemetryProviders } from './otel.js';

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * An HTTP client attempt, as OpenTelemetry's HTTP conventions name it: the span is named after
 * the method, with `http.request.method`, `server.address`, `server.port` and `url.full` (without
 * credentials); `status` reads the response's status code from a returned value.
 */
export function httpAttempt<T>(
  method: string,
  url: string | URL,
  status?: (value: T) => number | undefined,
  providers?: TelemetryProviders,
): AttemptDescription<T> {
  const attributes: Record<string, string | number> = { 'http.request.method': method };
  const parsed = url instanceof URL ? url : parseUrl(url);
  if (parsed !== null) {
    attributes['server.address'] = parsed.hostname;
    const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
    if (port !== undefined) attributes['server.port'] = port;
    if (parsed.username !== '' || parsed.password !== '') {
      const shown = new URL(parsed);
      shown.username = '';
      shown.password = '';
      attributes['url.full'] = shown.href;
    } else {
      attributes['url.full'] = parsed.href;
    }
  }
  return {
    name: method,
    kind: 'client',
    attributes,
    ...(providers === undefined ? {} : { providers }),
    ...(status === undefined
      ? {}
      : {
          resultAttributes: (value: T): TelemetryAttributes | undefined => {
            const code = status(value);
            return code === undefined ? undefined : { 'http.response.status_code': code };
          },
        }),
  };
}

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * A gRPC client attempt, as OpenTelemetry's RPC conventions name it: the span is named after the
 * full method (`package.Service/Method`), with `rpc.system` `grpc`, `rpc.service` and
 * `rpc.method`.
 */
export function grpcAttempt(
  path: string,
  providers?: TelemetryProviders,
): AttemptDescription<never> {
  const trimmed = path.startsWith('/') ? path.slice(1) : path;
  const slash = trimmed.lastIndexOf('/');
  const service = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const method = slash === -1 ? '' : trimmed.slice(slash + 1);
  return {
    name: trimmed,
    kind: 'client',
    attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method },
    ...(providers === undefined ? {} : { providers }),
  };
}

/**
 * The headers that carry the active context downstream (`traceparent`, `tracestate`, as the
 * registered propagator writes them), or undefined when no propagator is registered. Called in
 * an attempt's context, it makes the attempt's span its callee's parent.
 */
export function traceHeaders(): Record<string, string> | undefined {
  if (registeredOtel()?.propagation === undefined) return undefined;
  const api = loadApi();
  if (api === null) return undefined;
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  for (const _ in carrier) return carrier;
  return undefined;
}

/**
 * How an adapter describes its attempts: `false` where its `telemetry` option is `false` or no
 * provider is registered or given (the usual case, one global read), else `describe(providers)`.
 */
export function adapterTelemetry<T>(
  option: TelemetryProviders | false | undefined,
  describe: (providers: TelemetryProviders | undefined) => AttemptDescription<T>,
): AttemptDescription<T> | false {
  if (option === false || activeOtel(option) === undefined) return false;
  return describe(option);
}
