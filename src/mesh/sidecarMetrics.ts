import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { TalliedCounter } from './TalliedCounter.js';

/**
 * Why an outbound call stopped on a failure before its class's retry limit: the deadline, the
 * server's `Retry-After`, a method that may not be repeated, a retry budget, or a body too large
 * to replay (sent once, as a stream).
 */
export const GIVE_UP_REASONS = [
  'deadline',
  'pushback',
  'non-idempotent',
  'budget',
  'unreplayable',
] as const;

/** One of {@link GIVE_UP_REASONS}. */
export type GiveUpLabel = (typeof GIVE_UP_REASONS)[number];

/** The limits whose rejections are counted: header bytes (431), header lines (431), body (413). */
export type LimitLabel = 'header_bytes' | 'header_count' | 'body_bytes' | 'uploads';

/** The three listeners a sidecar may run. */
export type ListenerLabel = 'inbound' | 'outbound' | 'admin';

/** Latency buckets, seconds: from half a millisecond (one loopback hop) to 10 s. */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** The meters of one upstream and class, with their labels bound once. */
export interface OutboundMeters {
  /** A call from the application. */
  request(): void;
  /** An attempt that ended (with a response, an error or a per-try timeout). */
  attempt(): void;
  retry(): void;
  /** A call whose last attempt was rejected with the class's retries used up (DiffTry's R_p). */
  rejection(): void;
  /** A call that stopped on a failure before its retry limit. */
  giveUp(reason: GiveUpLabel): void;
  /** The call's duration, from its request to the end of its response, seconds. */
  latency(seconds: number): void;
}

/** The meters of one class at the inbound listener. */
export interface InboundMeters {
  /** A request that arrived (admitted or not). */
  arrival(): void;
  /** A request rejected at once because m were in the system. */
  admissionRejection(): void;
  /** An admitted request's duration, queueing included, seconds. */
  latency(seconds: number): void;
}

/** What the gauges read at each scrape. */
export interface SidecarGaugeSources {
  /** The per-try timeout the next call's first attempt would get (ms), if any. */
  readonly timeoutMs?: (upstream: string, className: string) => number | undefined;
  /** The admission gate's occupancy. */
  readonly admission?: () => { readonly running: number; readonly queued: number };
  /** Requests being served by a listener. */
  readonly inFlight?: (listener: ListenerLabel) => number | undefined;
}

/** Options of {@link createSidecarMetrics}. */
export interface SidecarMetricsOptions {
  /** The sidecar's service, a label on every series. */
  readonly service: string;
  readonly classes: readonly string[];
  readonly upstreams: readonly string[];
  /** Whether the sidecar runs admission (inbound). */
  readonly inbound: boolean;
  readonly gauges?: SidecarGaugeSources;
}

/** A sidecar's metrics: its own registry (never prom-client's global one) and bound meters. */
export interface SidecarMetrics {
  readonly registry: Registry;
  /** The meters of an upstream and class (declared names only). */
  outbound(upstream: string, className: string): OutboundMeters;
  /** The meters of a class at the inbound listener. */
  inbound(className: string): InboundMeters;
  /** Counts a request refused for a limit. */
  limitRejection(listener: ListenerLabel, limit: LimitLabel): void;
}

/**
 * The metrics of one sidecar (docs/mesh.md, "Metrics"), in a Registry of its own so that several
 * sidecars in one process (tests, the testbed) never mix. Every series of every declared upstream
 * and class starts at 0, so a dashboard sees it before the first request.
 * @example
 * ```ts
 * const metrics = createSidecarMetrics({ service: 'frontend', classes: ['high', 'low'],
 *   upstreams: ['search'], inbound: true });
 * metrics.outbound('search', 'high').attempt();
 * await metrics.registry.metrics(); // Prometheus text
 * ```
 */
export function createSidecarMetrics(options: SidecarMetricsOptions): SidecarMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  const registers = [registry];
  const outboundLabels = ['upstream', 'class'] as const;
  const requests = new TalliedCounter({
    name: 'difftry_outbound_requests_total',
    help: 'Calls the application made through the outbound listener.',
    labelNames: outboundLabels,
    registers,
  });
  const attempts = new TalliedCounter({
    name: 'difftry_outbound_attempts_total',
    help: 'Attempts sent upstream that ended with a response, an error or a per-try timeout.',
    labelNames: outboundLabels,
    registers,
  });
  const retries = new TalliedCounter({
    name: 'difftry_outbound_retries_total',
    help: 'Retries decided by the DiffTry policy.',
    labelNames: outboundLabels,
    registers,
  });
  const rejections = new TalliedCounter({
    name: 'difftry_outbound_rejections_total',
    help: "Calls whose last attempt was rejected with the class's retries used up.",
    labelNames: outboundLabels,
    registers,
  });
  const giveUps = new Counter({
    name: 'difftry_outbound_giveups_total',
    help: 'Calls that stopped on a failure before their retry limit, by reason.',
    labelNames: [...outboundLabels, 'reason'] as const,
    registers,
  });
  const outboundLatency = new Histogram({
    name: 'difftry_outbound_latency_seconds',
    help: 'Duration of outbound calls, retries included, to the end of the response.',
    labelNames: outboundLabels,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const { gauges = {} } = options;
  if (gauges.timeoutMs !== undefined) {
    const timeoutMs = gauges.timeoutMs;
    new Gauge({
      name: 'difftry_outbound_timeout_seconds',
      help: "The per-try timeout of a call's first attempt now (fixed or adaptive).",
      labelNames: outboundLabels,
      registers,
      collect() {
        for (const upstream of options.upstreams) {
          for (const className of options.classes) {
            const ms = timeoutMs(upstream, className);
            if (ms !== undefined) this.set({ upstream, class: className }, ms / 1000);
          }
        }
      },
    });
  }

  const arrivals = new Counter({
    name: 'difftry_inbound_requests_total',
    help: 'Requests that arrived at the inbound listener, admitted or not.',
    labelNames: ['class'] as const,
    registers,
  });
  const admissionRejections = new Counter({
    name: 'difftry_inbound_admission_rejections_total',
    help: 'Requests rejected at once with 503 because m requests were in the system.',
    labelNames: ['class'] as const,
    registers,
  });
  const inboundLatency = new Histogram({
    name: 'difftry_inbound_latency_seconds',
    help: 'Duration of admitted requests, queueing included, to the end of the response.',
    labelNames: ['class'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  if (gauges.admission !== undefined) {
    const admission = gauges.admission;
    new Gauge({
      name: 'difftry_inbound_running',
      help: 'Requests the application is running now (at most c).',
      registers,
      collect() {
        this.set(admission().running);
      },
    });
    new Gauge({
      name: 'difftry_inbound_queued',
      help: 'Requests waiting for the application (at most m − c).',
      registers,
      collect() {
        this.set(admission().queued);
      },
    });
  }
  if (gauges.inFlight !== undefined) {
    const inFlight = gauges.inFlight;
    new Gauge({
      name: 'difftry_in_flight_requests',
      help: 'Requests a listener is serving now.',
      labelNames: ['listener'] as const,
      registers,
      collect() {
        for (const listener of ['inbound', 'outbound', 'admin'] as const) {
          const count = inFlight(listener);
          if (count !== undefined) this.set({ listener }, count);
        }
      },
    });
  }
  const limitRejections = new Counter({
    name: 'difftry_limit_rejections_total',
    help: 'Requests refused for a limit: header bytes or lines (431), body bytes (413), uploads at once (503).',
    labelNames: ['listener', 'limit'] as const,
    registers,
  });

  const outboundMeters = new Map<string, OutboundMeters>();
  for (const upstream of options.upstreams) {
    for (const className of options.classes) {
      const labels = { upstream, class: className };
      const reasonLabels = new Map(
        GIVE_UP_REASONS.map((reason) => [reason, { ...labels, reason }] as const),
      );
      // Each series starts at 0 (`tally` declares it); the four counts of every call are tallied
      // in plain numbers, which the counters take when read (see TalliedCounter).
      const request = requests.tally(labels);
      const attempt = attempts.tally(labels);
      const retry = retries.tally(labels);
      const rejection = rejections.tally(labels);
      for (const reason of reasonLabels.values()) giveUps.inc(reason, 0);
      outboundLatency.zero(labels);
      // A child bound once: the hot path does not hash label objects.
      const latency = outboundLatency.labels(labels);
      outboundMeters.set(key(upstream, className), {
        request: () => {
          request.count++;
        },
        attempt: () => {
          attempt.count++;
        },
        retry: () => {
          retry.count++;
        },
        rejection: () => {
          rejection.count++;
        },
        giveUp: (reason) => giveUps.inc(reasonLabels.get(reason) ?? { ...labels, reason }),
        latency: (seconds) => latency.observe(seconds),
      });
    }
  }
  const inboundMeters = new Map<string, InboundMeters>();
  if (options.inbound) {
    for (const className of options.classes) {
      const labels = { class: className };
      arrivals.inc(labels, 0);
      admissionRejections.inc(labels, 0);
      inboundLatency.zero(labels);
      const arrival = arrivals.labels(labels);
      const admissionRejection = admissionRejections.labels(labels);
      const latency = inboundLatency.labels(labels);
      inboundMeters.set(className, {
        arrival: () => arrival.inc(),
        admissionRejection: () => admissionRejection.inc(),
        latency: (seconds) => latency.observe(seconds),
      });
    }
  }

  return {
    registry,
    outbound(upstream, className) {
      const meters = outboundMeters.get(key(upstream, className));
      if (meters === undefined) {
        throw new RangeError(`no meters for upstream ${upstream} and class ${className}`);
      }
      return meters;
    },
    inbound(className) {
      const meters = inboundMeters.get(className);
      if (meters === undefined) throw new RangeError(`no inbound meters for class ${className}`);
      return meters;
    },
    limitRejection: (listener, limit) => limitRejections.inc({ listener, limit }),
  };
}

function key(upstream: string, className: string): string {
  return `${upstream}\u0000${className}`;
}
