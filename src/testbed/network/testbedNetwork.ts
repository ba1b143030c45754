import { applyOverrides } from '../../config/networkOverrides.js';
import type { NetworkSpec } from '../../config/schema.js';
import { InvalidArgumentError } from '../../core/InvalidArgumentError.js';
import { type GrpcCappedClass, grpcCappedClasses } from '../../deploy/envoyGrpcLimits.js';
import { envoyBackOff } from '../../deploy/envoyRetryPolicy.js';
import { meshPlan } from '../../deploy/meshPlan.js';
import {
  type BackoffDescription,
  DEFAULT_BACKOFF,
} from '../../model/backoff/BackoffDescription.js';
import { describeBackoff } from '../../model/backoff/describeBackoff.js';

/**
 * How a testbed's services talk: `http` (`node:http` services, DiffTry sidecars or in-process
 * retries) or `grpc-xds` (gRPC services over `xds:///` channels, gRPC's own retries from the xDS
 * routes of the same network).
 */
export type TestbedTransport = 'http' | 'grpc-xds';

/** Every {@link TestbedTransport}, the default first. */
export const TESTBED_TRANSPORTS: readonly TestbedTransport[] = Object.freeze(['http', 'grpc-xds']);

/** How {@link testbedNetwork} adapts a network file to the testbed. */
export interface TestbedNetworkOptions {
  /**
   * Time scale of rates: every capacity μ and external arrival rate γ is multiplied by it, so
   * the whole network fits the machine (0.5: half the file's rates, service times twice as long).
   * Loads ρ, and so the analysis's rejections, do not change. Default 1.
   */
  readonly scale?: number;
  /** Retry limit per class name at every hop (replaces the class's and every service override). */
  readonly retries?: Readonly<Record<string, number>>;
  /** The retry delay of every class (replaces the file's). */
  readonly backoff?: BackoffDescription;
  /** Capacity per service name (requests/s, already on the testbed's time scale). */
  readonly capacities?: Readonly<Record<string, number>>;
  /** External arrival rates per service and class (requests/s, already scaled). */
  readonly arrivals?: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/**
 * The network a testbed runs and the analysis predicts for: the file with its rates scaled, and
 * the what-ifs applied (retry limits, retry delay, calibrated capacities, measured arrivals).
 * Pure: returns a new network. Applying the same options to a call-graph file and to its routing
 * twin gives the two forms of one network.
 * @throws RangeError naming a bad scale, or a class or service the file does not declare.
 * @example
 * ```ts
 * const live = testbedNetwork(hotelCalls, { scale: 0.5, retries: { high: 5, low: 1 } });
 * ```
 */
export function testbedNetwork(
  network: NetworkSpec,
  options: Readonly<TestbedNetworkOptions> = {},
): NetworkSpec {
  const scale = options.scale ?? 1;
  if (!(Number.isFinite(scale) && scale > 0)) {
    throw new InvalidArgumentError(`scale should be a positive number, got ${scale}`);
  }
  const serviceNames = new Set(network.services.map((s) => s.name));
  for (const table of [options.capacities, options.arrivals]) {
    for (const name of Object.keys(table ?? {})) {
      if (!serviceNames.has(name)) {
        throw new InvalidArgumentError(
          `no service named "${name}" in the network (${[...serviceNames].join(', ')})`,
        );
      }
    }
  }
  // The retry limits as every host reads them: written into the file once.
  const overridden = applyOverrides(
    network,
    options.retries === undefined ? {} : { retries: options.retries },
  );
  return {
    ...overridden,
    classes: overridden.classes.map((c) => ({
      ...c,
      ...(options.backoff !== undefined && { backoff: options.backoff }),
    })),
    services: overridden.services.map((service) => {
      const arrivals =
        options.arrivals?.[service.name] ??
        Object.fromEntries(Object.entries(service.arrivals).map(([c, rate]) => [c, rate * scale]));
      return {
        ...service,
        capacity: options.capacities?.[service.name] ?? service.capacity * scale,
        arrivals: { ...arrivals },
      };
    }),
  };
}

/**
 * The classes that gRPC's cap of 5 attempts a call (gRFC A6) cuts on the gRPC testbed: those
 * with k above 4 at some hop (a callee's own override included), in class order. Over `grpc-xds`
 * such a class makes 4 retries where the network asks more.
 */
export function testbedGrpcCappedClasses(network: NetworkSpec): GrpcCappedClass[] {
  return grpcCappedClasses(meshPlan(network));
}

/** An xDS backoff interval of exactly 1 s, served 1 ns shorter (see {@link grpcXdsNetwork}). */
const JUST_UNDER_ONE_SECOND_MS = 999.999_999;

/**
 * The network the gRPC testbed's control plane serves: the running network, with each class's
 * retry delay as its gRPC backoff intervals (`envoyBackOff`, the shared mapping) kept under one
 * second. @grpc/grpc-js-xds 1.14 reads a `retry_back_off` Duration of 1 s or more ten times too
 * long (its seconds arrive as a string, `"1" + 0` → `"10s"`), so an interval of exactly 1 s (the
 * testbed's default random delay of mean 500 ms) is served as 1 s − 1 ns, and a longer one is
 * refused. Pure: returns a new network.
 * @throws RangeError naming the class whose delay maps to an interval above 1 s.
 */
export function grpcXdsNetwork(network: NetworkSpec): NetworkSpec {
  const toMs = (duration: string) => Number(duration.replace(/s$/, '')) * 1000;
  return {
    ...network,
    classes: network.classes.map((c) => {
      const backoff = c.backoff ?? network.backoff ?? DEFAULT_BACKOFF;
      const intervals = envoyBackOff(backoff);
      const baseMs = toMs(intervals.base_interval);
      const maxMs = toMs(intervals.max_interval);
      if (baseMs < 1000 && maxMs < 1000) return c;
      if (baseMs > 1000 || maxMs > 1000) {
        throw new InvalidArgumentError(
          `class ${c.name}: its retry delay (${describeBackoff(backoff)}) becomes gRPC backoff intervals of ${intervals.base_interval}–${intervals.max_interval}, and @grpc/grpc-js-xds reads an interval above 1 s ten times too long; the gRPC testbed takes intervals up to 1 s (a random delay of mean ≤ 500 ms)`,
        );
      }
      return {
        ...c,
        backoff: {
          kind: 'exponential',
          baseMs: Math.min(baseMs, JUST_UNDER_ONE_SECOND_MS),
          maxMs: Math.min(maxMs, JUST_UNDER_ONE_SECOND_MS),
          jitter: 'full',
        },
      };
    }),
  };
}
