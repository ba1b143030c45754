/**
 * difftry/ui: the protocol of the `difftry ui` server, for a page (the package's own, in `web/`,
 * or yours) that drives it. Types only: nothing here runs.
 *
 * - `POST api/testbed` with a {@link TestbedJobRequest} (JSON) starts a testbed run: 202; 409
 *   while one runs; 400 with `{ error }` on a bad body;
 * - `GET api/testbed/events` streams the run's {@link TestbedEvent}s as server-sent events
 *   (`event:` the event's `kind`, `data:` its JSON), from the run's start;
 * - `POST api/testbed/stop` stops it (204; 404 when none runs).
 *
 * @example
 * ```ts
 * import type { TestbedEvent } from 'difftry/ui';
 * const source = new EventSource('api/testbed/events');
 * source.addEventListener('point', (message) => {
 *   const event = JSON.parse(message.data) as Extract<TestbedEvent, { kind: 'point' }>;
 *   console.log(event.x, event.classes.map((c) => c.measured));
 * });
 * ```
 * @module
 */

export type { TestbedClassPoint, TestbedEvent, TestbedJobRequest } from './TestbedJob.js';
