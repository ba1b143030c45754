import { hopOf } from '../../src/config/resolveHops.js';
import { GRPC_MAX_ATTEMPTS } from '../../src/deploy/envoyGrpcLimits.js';
import { calleesOf } from './callees.js';
import type { Deployment } from './deployment.js';
import {
  analysisReadings,
  calleeReadings,
  callerReadings,
  edgeReadings,
  planReadings,
  type Reading,
} from './hopReadings.js';
import { grpcCapNamed, grpcClientRetries, namedLimit } from './namedLimits.js';
import { formatHop, type ReadHop, sameHop } from './readHop.js';

/** A class name none of the generated networks declares. */
export const UNKNOWN_CLASS = 'platinum';

/** A request's class header, and the class difftry's own sidecar gives it. */
type ClassRequest = readonly [value: string | undefined, className: string];

/**
 * What disagrees in one deployment, one line per consumer, hop and request; empty when every
 * consumer agrees with `resolveHops` (or its output names the limit that prevents it):
 * - the calls into every service: per class the model and the plan's `calls` (and its
 *   unclassified entry, the default class's); per request (each class by name and in upper
 *   case, no class header, an unknown class) the xDS routes as served and as a gRPC client
 *   applies them, and Istio's, Linkerd's and Gateway API's routes;
 * - every caller → callee of the file: per class the plan's upstream (and its unclassified
 *   entry); per request the caller's sidecar config (`upstreamHop`) and the caller's Envoy
 *   (GET, gRPC, and POST with no retry);
 * - at every edge, per request: Istio's ingress and Gateway API's edge route, which give every
 *   request the edge's class;
 * - the services each caller calls: the file's, the model's, the sidecar's and the plan's.
 */
export function mismatches(d: Deployment): string[] {
  const found: string[] = [];
  const classes = d.network.classes.map((c) => c.name);
  if (classes.includes(UNKNOWN_CLASS)) throw new Error(`the network declares ${UNKNOWN_CLASS}`);
  const defaultClass = classes[classes.length - 1] as string;
  const edgeDefault = d.network.edge?.default ?? defaultClass;
  const requests: ClassRequest[] = [
    ...classes.map((c): ClassRequest => [c, c]),
    ...classes.filter((c) => c.toUpperCase() !== c).map((c): ClassRequest => [c.toUpperCase(), c]),
    [undefined, defaultClass],
    [UNKNOWN_CLASS, defaultClass],
  ];
  const describe = (value: string | undefined) =>
    value === undefined ? 'no class header' : `class header ${value}`;
  const compare = (
    where: string,
    readings: readonly Reading[],
    callee: string,
    [classValue, className]: ClassRequest,
  ) => {
    const expected = hopOf(d.resolved, callee, className);
    const defaultHop = hopOf(d.resolved, callee, defaultClass);
    for (const reading of readings) {
      const want: ReadHop = reading.noRetry ? { ...expected, retries: 0 } : expected;
      if (reading.hop !== undefined && sameHop(reading.hop, want)) continue;
      if (namedLimit(d, reading, expected, { classValue, defaultHop }) !== undefined) continue;
      const got = reading.hop === undefined ? `error: ${reading.error}` : formatHop(reading.hop);
      found.push(`${where}: ${reading.consumer} has ${got}; resolveHops says ${formatHop(want)}`);
    }
  };

  if (d.plan.defaultClass !== defaultClass) {
    found.push(`meshPlan: default class ${d.plan.defaultClass}, expected ${defaultClass}`);
  }
  d.network.services.forEach((service, i) => {
    const name = service.name;
    for (const className of classes) {
      const where = `into ${name}, class ${className}`;
      compare(where, analysisReadings(d, name, className), name, [className, className]);
      compare(where, planReadings(d, undefined, name, className), name, [className, className]);
    }
    const unclassified: ClassRequest = [undefined, defaultClass];
    compare(
      `into ${name}, unclassified`,
      planReadings(d, undefined, name, undefined),
      name,
      unclassified,
    );
    for (const request of requests) {
      const where = `into ${name}, ${describe(request[0])}`;
      const readings = calleeReadings(d, name, request[0]);
      compare(where, readings, name, request);
      // A proxyless gRPC client makes at most 5 attempts of the served route's; only a class
      // `grpcCappedClasses` names (and `envoyLimits` says so) may get fewer than k retries.
      const k = hopOf(d.resolved, name, request[1]).retries;
      const served = readings.find((r) => r.consumer === 'xds (served route)')?.hop;
      if (served === undefined) continue;
      const client = grpcClientRetries(served.retries);
      const capped = client === GRPC_MAX_ATTEMPTS - 1 && served.retries === k;
      if (client !== k && !(capped && grpcCapNamed(d, request[1], k) !== undefined)) {
        found.push(
          `${where}: a gRPC client over xDS makes ${client} retries; resolveHops says ${k}, and envoyLimits does not name gRPC's cap`,
        );
      }
    }
    // The file's hops are the model's, the sidecar's and the plan's: no more, no fewer.
    const callees = calleesOf(service);
    const model = d.model.services[i];
    const modelTargets = [
      ...(model?.routes ?? []).map((r) => r.to),
      ...(model?.calls ?? []).map((c) => c.to),
      ...(model?.branches ?? []).flatMap((b) => b.calls.map((c) => c.to)),
    ].map((j) => d.network.services[j]?.name ?? `#${j}`);
    const lists = {
      model: [...new Set(modelTargets)],
      'sidecar config': (d.sidecars.get(name)?.outbound?.upstreams ?? []).map((u) => u.name),
      meshPlan: (d.plan.services[i]?.upstreams ?? []).map((u) => u.service),
    };
    for (const [consumer, list] of Object.entries(lists)) {
      if ([...list].sort().join() !== [...callees].sort().join()) {
        found.push(`${name}: ${consumer} calls ${list.join(', ')}; the file ${callees.join(', ')}`);
      }
    }
    for (const upstream of callees) {
      for (const className of classes) {
        const where = `${name} → ${upstream}, class ${className}`;
        compare(where, planReadings(d, name, upstream, className), upstream, [
          className,
          className,
        ]);
      }
      const where = `${name} → ${upstream}, unclassified`;
      compare(where, planReadings(d, name, upstream, undefined), upstream, unclassified);
      for (const request of requests) {
        const where = `${name} → ${upstream}, ${describe(request[0])}`;
        compare(where, callerReadings(d, name, upstream, request[0]), upstream, request);
      }
    }
    // At the edge the client's class header is replaced: every request gets the edge's class.
    if (Object.values(service.arrivals).some((rate) => rate > 0)) {
      for (const [value] of requests) {
        const where = `edge ${name}, ${describe(value)}`;
        compare(where, edgeReadings(d, name, value), name, [undefined, edgeDefault]);
      }
    }
  });
  return found;
}
