/** The sidecar bench's settings (bench/sidecar.ts), shared by its servers, load and report. */

/** Open-loop rate, requests per second, and the schedule's rounds. */
export const RATE = 1000;
export const WARMUP_MS = 2000;
export const ROUND_MS = 1000;
export const ROUNDS = 10;
/** Closed loop: concurrent requests (one connection each), warm-up and measured time per round. */
export const CONCURRENCY = 64;
export const THROUGHPUT_WARMUP_MS = 1000;
export const THROUGHPUT_ROUND_MS = 2000;
/** The target: microseconds the sidecar may add at p50. */
export const TARGET_ADDED_P50_US = 300;
/** The target (issue 29): the sidecar adds at p50 at most this many times what the bare relay adds. */
export const TARGET_ADDED_P50_VS_RELAY = 1.5;
/** The target (issue 29): closed-loop requests per second, at least this many times http-proxy's. */
export const TARGET_THROUGHPUT_VS_PROXY = 1.5;

export const BODY = 'ok';
export const CLASS_HEADER = 'x-priority';
export const PRIORITY = 'high';
