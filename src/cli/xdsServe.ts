// The decisions of `difftry xds serve`, apart from its I/O: the flags it parses, the lines it
// prints, and what a reload of the network file does to the served version. xdsCommand.ts does
// the watching, the signals and the writing.
import { isIP } from 'node:net';
import type { NetworkSpec } from '../config/schema.js';
import { printable } from '../core/printable.js';
import {
  GRPC_MAX_ATTEMPTS,
  grpcCappedClasses,
  grpcUntimedClasses,
} from '../deploy/envoyGrpcLimits.js';
import { envoyBackOff } from '../deploy/envoyRetryPolicy.js';
import { meshPlan } from '../deploy/meshPlan.js';
import { DEFAULT_BACKOFF } from '../model/backoff/BackoffDescription.js';
import type { XdsEndpoint, XdsRequestEvent, XdsServer } from '../xds/index.js';
import type { NackRepeats } from '../xds/NackLog.js';
import { UsageError } from './UsageError.js';

/** A `HOST:PORT` address; an IPv6 host without its brackets. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `HOST:PORT` (`127.0.0.1:18000`, `localhost:18000`, `[::1]:18000`), for the option
 * `flag`, with a port from `minPort` to 65535.
 * @throws {UsageError} on anything else.
 */
export function parseHostPort(text: string, flag: string, minPort = 1): HostPort {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]=]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : Number.NaN;
  const host = match?.[1] ?? match?.[2];
  if (host === undefined || (match?.[1] !== undefined && isIP(host) !== 6)) {
    throw new UsageError(`${flag}: expected HOST:PORT, got "${text}"`);
  }
  if (!(port >= minPort && port <= 65_535)) {
    throw new UsageError(`${flag}: expected a port from ${minPort} to 65535, got "${text}"`);
  }
  return { host, port };
}

/** The host as an address names it: an IPv6 one in brackets. */
export const bracketed = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/** `host:port`, as the lines print it. */
export const formatHostPort = (address: HostPort): string =>
  `${bracketed(address.host)}:${address.port}`;

/**
 * Parses the `--endpoint SERVICE=ADDRESS:PORT` values (repeated for several services, or several
 * instances of one) into each service's endpoints, in the order given.
 * @throws {UsageError} on a malformed value, a host name (EDS endpoints are IP addresses), or
 *   an endpoint given twice for a service.
 */
export function parseEndpoints(values: readonly string[]): Record<string, XdsEndpoint[]> {
  const endpoints: Record<string, XdsEndpoint[]> = {};
  for (const value of values) {
    const equals = value.indexOf('=');
    const service = equals > 0 ? value.slice(0, equals).trim() : '';
    if (service === '') {
      throw new UsageError(`--endpoint: expected SERVICE=HOST:PORT, got "${value}"`);
    }
    const address = parseHostPort(value.slice(equals + 1).trim(), `--endpoint ${service}`);
    if (isIP(address.host) === 0) {
      // An EDS endpoint is an address: gRPC clients refuse (NACK) a host name, and so does Envoy.
      throw new UsageError(
        `--endpoint ${service}: expected an IPv4 or IPv6 address, got "${address.host}" (xDS endpoints are addresses; resolve the name first)`,
      );
    }
    const own = Object.hasOwn(endpoints, service) ? (endpoints[service] as XdsEndpoint[]) : [];
    if (own.some((e) => e.host === address.host && e.port === address.port)) {
      throw new UsageError(
        `--endpoint: ${service}=${formatHostPort(address)} is given twice; give each endpoint once`,
      );
    }
    own.push({ host: address.host, port: address.port });
    endpoints[service] = own;
  }
  return endpoints;
}

/**
 * Checks that every service `--endpoint` names is in the network.
 * @throws {UsageError} naming the first unknown service and the network's services.
 */
export function checkEndpointServices(
  network: NetworkSpec,
  endpoints: Readonly<Record<string, readonly XdsEndpoint[]>>,
): void {
  const known = network.services.map((service) => service.name);
  for (const service of Object.keys(endpoints)) {
    if (!known.includes(service)) {
      throw new UsageError(
        `--endpoint: the network has no service "${service}" (services: ${known.join(', ')})`,
      );
    }
  }
}

/** An error's message on one line (a SpecError's already is), for the log. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .join(' ') || (error instanceof Error ? error.name : 'unknown error')
  );
}

/**
 * One warning line per class whose retry delay reaches gRPC clients as a backoff interval of a
 * second or more: @grpc/grpc-js-xds 1.14 reads such an interval ten times too long (docs/xds.md,
 * "A backoff of one second or more"). Envoy reads it right.
 */
export function slowBackoffLines(network: NetworkSpec): string[] {
  const seconds = (duration: string) => Number(duration.replace(/s$/, ''));
  return network.classes.flatMap((c) => {
    const intervals = envoyBackOff(c.backoff ?? network.backoff ?? DEFAULT_BACKOFF);
    if (seconds(intervals.base_interval) < 1 && seconds(intervals.max_interval) < 1) return [];
    return [
      `difftry xds: note: class ${c.name}'s retry backoff is served as ${intervals.base_interval}–${intervals.max_interval}; @grpc/grpc-js-xds 1.14 clients read an interval of 1 s or more ten times too long (keep it under 1 s for them; docs/xds.md)`,
    ];
  });
}

/**
 * One note line per limit of proxyless gRPC clients that the network runs into: a class with
 * more than 4 retries at some hop (gRPC makes at most 5 attempts a call), a class with per-try
 * timeouts (gRPC ignores them), and a retry delay served as an interval of a second or more
 * ({@link slowBackoffLines}). Envoy served the same resources has none of these limits.
 */
export function grpcClientNotes(network: NetworkSpec): string[] {
  const plan = meshPlan(network);
  const capped = grpcCappedClasses(plan).map(
    ({ className, retries }) =>
      `difftry xds: note: class ${className} retries up to ${retries} times at some hop; gRPC clients make at most ${GRPC_MAX_ATTEMPTS} attempts a call, so they retry it ${GRPC_MAX_ATTEMPTS - 1} times (docs/xds.md)`,
  );
  const untimed = grpcUntimedClasses(plan).map(
    ({ className, services }) =>
      `difftry xds: note: class ${className} has per-try timeouts on calls into ${services.join(', ')}; gRPC clients ignore them (their own deadline applies; docs/xds.md)`,
  );
  return [...capped, ...untimed, ...slowBackoffLines(network)];
}

/** The line printed once the server listens. */
export const startLine = (services: number, address: HostPort): string =>
  `difftry xds: serving ${services} services on ${formatHostPort(address)}`;

/** What a reload did: a new version served, or the last good one kept and why. */
export type ReloadOutcome =
  | { readonly kind: 'updated'; readonly version: string; readonly services: number }
  | { readonly kind: 'kept'; readonly version: string; readonly reason: string };

/**
 * Reloads the network: `load` gives the new network (it throws for a file that cannot be read or
 * is not a valid network, or names none of the `--endpoint` services), `server.update` serves it
 * (it throws for a network it cannot encode, and keeps the last good version). Never throws:
 * any failure keeps the version served.
 */
export function reloadNetwork(
  server: Pick<XdsServer, 'version' | 'update'>,
  load: () => NetworkSpec,
): ReloadOutcome {
  try {
    const network = load();
    server.update(network);
    return { kind: 'updated', version: server.version, services: network.services.length };
  } catch (error) {
    return { kind: 'kept', version: server.version, reason: oneLine(error) };
  }
}

/** The one line a reload prints. */
export function reloadLine(outcome: ReloadOutcome): string {
  return outcome.kind === 'updated'
    ? `difftry xds: version ${outcome.version} (${outcome.services} services)`
    : `difftry xds: kept version ${outcome.version}: ${outcome.reason}`;
}

/** Why a reload was asked for: the file changed on disk, or SIGHUP. */
export type ReloadTrigger = 'watch' | 'signal';

/**
 * Whether a reload should go ahead, given what the file reads as now and what it read as last
 * time (its text, or why it could not be read). A change seen by the watcher that reads the same
 * as last time (a touch, the same text written again, another file of the directory) changes
 * nothing and prints nothing; SIGHUP always reloads.
 */
export function shouldReload(trigger: ReloadTrigger, read: string, lastRead: string): boolean {
  return trigger === 'signal' || read !== lastRead;
}

const TYPE_NAME = /\.([A-Za-z]+)$/;

/** A type URL as the lines name it: its message's short name for a type we serve. */
function typeName(typeUrl: string): string {
  return TYPE_NAME.exec(typeUrl)?.[1] ?? printable(typeUrl);
}

/** The node as the lines name it, escaped and cut (printable). */
const nodeName = (node: string): string => (node === '' ? '(no node id)' : printable(node));

/** `199 more NACKs of Listener since 2025-01-01T00:00:00.000Z`. */
function repeatsText(repeats: NackRepeats): string {
  const nacks = repeats.count === 1 ? 'NACK' : 'NACKs';
  return `${repeats.count} more ${nacks} of ${typeName(repeats.typeUrl)} since ${new Date(repeats.sinceMs).toISOString()}`;
}

/**
 * The line for a request worth logging, or undefined for the others: a NACK the server's NACK
 * log says is worth a line (the first, a new detail, one an interval later; repeats are counted
 * and said with the next line or at the stream's end), a request refused over a limit, and the
 * end of a stream with NACKs still counted. Every string from the client (node id, type URL,
 * version, detail) goes through {@link printable}: escaped and cut at 200 characters, so a line
 * stays one line of bounded length whatever the client sends.
 */
export function requestLine(event: XdsRequestEvent): string | undefined {
  const node = nodeName(event.node);
  const repeats = (event.unlogged ?? []).map(repeatsText).join(', ');
  if (event.kind === 'closed') {
    return repeats === '' ? undefined : `difftry xds: node ${node}: ${repeats} (stream ended)`;
  }
  if (event.kind === 'refused') {
    return `difftry xds: refused a request from ${node}: ${typeName(event.typeUrl)}: ${printable(event.error ?? 'over a limit')}`;
  }
  if (event.kind !== 'nack' || event.logged === false) return undefined;
  const held = event.versionInfo === '' ? 'none' : printable(event.versionInfo);
  const detail = printable(event.error ?? 'no detail');
  const before = repeats === '' ? '' : ` (before it, ${repeats})`;
  return `difftry xds: NACK from ${node}: ${typeName(event.typeUrl)} (it keeps version ${held}): ${detail}${before}`;
}
