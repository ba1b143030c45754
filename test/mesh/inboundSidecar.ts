import type { SidecarConfigInput } from '../../src/config/sidecarSchema.js';
import { type SidecarHandle, startSidecar } from '../../src/mesh/index.js';

/** What a test may set of an inbound listener; `listen` is always 127.0.0.1, port 0. */
export type TestInbound = Partial<NonNullable<SidecarConfigInput['inbound']>>;

/**
 * Starts a sidecar with only an inbound listener (127.0.0.1, port 0) in front of `app`: service
 * `frontend`, classes high (1 retry) and low (none), no backoff delay, no environment. The caller
 * closes it.
 * @example
 * ```ts
 * const sidecar = await startInboundSidecar(appOrigin, { concurrency: 1, capacity: 4 });
 * ```
 */
export function startInboundSidecar(app: string, inbound: TestInbound): Promise<SidecarHandle> {
  return startSidecar(
    {
      service: 'frontend',
      classes: [
        { name: 'high', retries: 1 },
        { name: 'low', retries: 0 },
      ],
      backoff: { kind: 'constant', delayMs: 0 },
      inbound: { listen: '127.0.0.1:0', app, capacity: 10, ...inbound },
    },
    { env: {} },
  );
}
