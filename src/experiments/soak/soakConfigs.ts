/**
 * The two sidecar configs of the soak (scripts/soak.ts), as `difftry proxy --config` reads them:
 *
 * ```
 * clients ──► EDGE inbound (edge rules, c = 4, m = 16) ──► app
 * clients ──► EDGE outbound (DiffTry retries) ──► MESH inbound (trusts frontend, c = 4, m = 16) ──► app
 *             app /chain ──► EDGE outbound ──► MESH inbound ──► app /work
 * ```
 *
 * One application process serves both roles. Pure: the executor writes the configs to files and
 * starts the sidecars.
 */
import type { SidecarConfigInput } from '../../config/sidecarSchema.js';

/** c of both sidecars' inbound admission: requests the application runs at once. */
export const SOAK_CONCURRENCY = 4;

/** m of both sidecars' inbound admission: the most requests in the system. */
export const SOAK_SYSTEM_CAPACITY = 16;

/** How long the application takes to serve a normal request, ms. */
export const SOAK_SERVICE_MS = 100;

/**
 * The admission capacity of each sidecar, requests per second: c requests at once, each taking
 * {@link SOAK_SERVICE_MS}, so c / S (4 / 0.1 s = 40 requests/s).
 */
export const SOAK_ADMISSION_CAPACITY_PER_SECOND = SOAK_CONCURRENCY / (SOAK_SERVICE_MS / 1000);

/** The variable holding the mesh token (the soak makes one up per run). */
export const SOAK_TOKEN_ENV = 'DIFFTRY_SOAK_TOKEN';

/** The variable holding the API keys the edge classes high. */
export const SOAK_API_KEYS_ENV = 'DIFFTRY_SOAK_API_KEYS';

/** The edge sidecar's service name, which the mesh sidecar trusts. */
export const EDGE_SERVICE = 'frontend';

/** The mesh sidecar's service name; also its upstream name (prefix `/backend`) at the edge. */
export const MESH_SERVICE = 'backend';

/**
 * Transport bounds towards the application and the mesh hop, ms. Shorter than the shipped 30 s
 * so that a never-answering or stalling application path frees its running place within two
 * seconds: at c = 4 the faulty paths would otherwise hold the whole gate and the soak would test
 * nothing else. The client limits (`limits.headersTimeoutMs`, `requestTimeoutMs`) keep their
 * shipped defaults, 10 s and 30 s, which the slow clients meet.
 */
export const SOAK_TIMEOUTS = Object.freeze({
  appHeadersTimeoutMs: 2_000,
  appBodyTimeoutMs: 2_000,
  perTryTimeoutMs: 1_000,
  deadlineMs: 4_000,
  upstreamHeadersTimeoutMs: 2_000,
  upstreamBodyTimeoutMs: 2_000,
});

/** The most connections of the edge's pool to the mesh sidecar. */
export const SOAK_MESH_CONNECTIONS = 32;

/**
 * The most connections the soak's clients open to each listener they send ordinary requests to
 * (one keep-alive agent per listener). With the pools' bounds it bounds the descriptors a sidecar
 * can need, which is what gives the descriptor ceilings their meaning (see soakLimits.ts).
 */
export const SOAK_CLIENT_SOCKETS = 128;

/** The most connections the application's `/chain` calls open to the edge's outbound listener. */
export const SOAK_CHAIN_SOCKETS = 64;

/** The classes both sidecars declare: DiffTry's two, high first (retries 3 and 1). */
const CLASSES = [
  { name: 'high', retries: 3 },
  { name: 'low', retries: 1 },
] as const;

const BACKOFF = { kind: 'exponential', baseMs: 20, maxMs: 200, jitter: 'full' } as const;

const LOOPBACK_ANY_PORT = '127.0.0.1:0';

/**
 * The edge sidecar: classifies clients by path (`/premium` → high) and API key
 * (`x-api-key` from {@link SOAK_API_KEYS_ENV} → high), else low; admits c = 4, m = 16 into the
 * application; forwards the application's calls to the mesh sidecar (`/backend/…`) with DiffTry
 * retries, a 1 s per-try timeout and a 4 s deadline.
 * @param appUrl the application, `http://127.0.0.1:PORT`.
 * @param meshUrl the mesh sidecar's inbound listener.
 */
export function edgeSidecarConfig(appUrl: string, meshUrl: string): SidecarConfigInput {
  return {
    ...sharedConfig(EDGE_SERVICE),
    inbound: {
      ...sharedInbound(appUrl),
      edge: {
        rules: [
          { path: '/premium', class: 'high' },
          { header: 'x-api-key', valueEnv: SOAK_API_KEYS_ENV, class: 'high' },
        ],
        default: 'low',
      },
    },
    outbound: {
      listen: LOOPBACK_ANY_PORT,
      upstreams: [
        {
          name: MESH_SERVICE,
          url: meshUrl,
          timeoutMs: SOAK_TIMEOUTS.perTryTimeoutMs,
          deadlineMs: SOAK_TIMEOUTS.deadlineMs,
          headersTimeoutMs: SOAK_TIMEOUTS.upstreamHeadersTimeoutMs,
          bodyTimeoutMs: SOAK_TIMEOUTS.upstreamBodyTimeoutMs,
          connections: SOAK_MESH_CONNECTIONS,
        },
      ],
    },
    admin: { listen: LOOPBACK_ANY_PORT },
    shutdownGraceMs: 2_000,
  };
}

/**
 * The mesh sidecar: believes the class header of the edge sidecar (proved by the mesh token),
 * admits c = 4, m = 16 into the application.
 * @param appUrl the application, `http://127.0.0.1:PORT`.
 */
export function meshSidecarConfig(appUrl: string): SidecarConfigInput {
  return {
    ...sharedConfig(MESH_SERVICE),
    inbound: { ...sharedInbound(appUrl), trust: { peers: [EDGE_SERVICE] } },
    admin: { listen: LOOPBACK_ANY_PORT },
    shutdownGraceMs: 2_000,
  };
}

/** What both sidecars' configs hold besides their inbound: classes, backoff, the mesh token. */
function sharedConfig(service: string) {
  return {
    service,
    classes: CLASSES.map((c) => ({ ...c })),
    backoff: { ...BACKOFF },
    identity: { tokenEnv: SOAK_TOKEN_ENV },
  };
}

/** The admission both sidecars put in front of the application: c = 4, m = 16. */
function sharedInbound(appUrl: string) {
  return {
    listen: LOOPBACK_ANY_PORT,
    app: appUrl,
    concurrency: SOAK_CONCURRENCY,
    capacity: SOAK_SYSTEM_CAPACITY,
    appHeadersTimeoutMs: SOAK_TIMEOUTS.appHeadersTimeoutMs,
    appBodyTimeoutMs: SOAK_TIMEOUTS.appBodyTimeoutMs,
  };
}
