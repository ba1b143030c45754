import { channel } from 'node:diagnostics_channel';
import type { RetryEvent, RetryEventKind, RetryEventSink } from '../policy/retry/RetryEvent.js';

/**
 * `node:diagnostics_channel` channels on which every call publishes its retries, give-ups,
 * successes and failed attempts (a {@link RetryEvent}); publishing costs nothing without
 * subscribers.
 */
export const channels = Object.freeze({
  retry: channel('difftry:retry'),
  giveUp: channel('difftry:giveup'),
  success: channel('difftry:success'),
  failure: channel('difftry:failure'),
});

/** The event listeners of a call; they are called synchronously and must not throw. */
export interface RetryListeners {
  readonly onRetry?: (event: RetryEvent) => void;
  readonly onGiveUp?: (event: RetryEvent) => void;
  readonly onSuccess?: (event: RetryEvent) => void;
  readonly onFailure?: (event: RetryEvent) => void;
}

const LISTENER = {
  retry: 'onRetry',
  giveUp: 'onGiveUp',
  success: 'onSuccess',
  failure: 'onFailure',
} as const satisfies Record<RetryEventKind, keyof RetryListeners>;

/** Events to the diagnostics channels only, for calls without listeners of their own. */
const CHANNELS_ONLY: RetryEventSink = {
  wants: (kind) => channels[kind].hasSubscribers,
  emit: (kind, event) => channels[kind].publish(event),
};

/** Events to a call's listeners, then to the diagnostics channels. */
class ListenerSink implements RetryEventSink {
  readonly #listeners: RetryListeners;

  constructor(listeners: RetryListeners) {
    this.#listeners = listeners;
  }

  wants(kind: RetryEventKind): boolean {
    return this.#listeners[LISTENER[kind]] !== undefined || channels[kind].hasSubscribers;
  }

  emit(kind: RetryEventKind, event: RetryEvent): void {
    this.#listeners[LISTENER[kind]]?.(event);
    const diagnostics = channels[kind];
    if (diagnostics.hasSubscribers) diagnostics.publish(event);
  }
}

/** Where the runtime's executors send a call's events: its listeners, then the channels. */
export function eventSink(listeners: RetryListeners): RetryEventSink {
  return listeners.onRetry || listeners.onGiveUp || listeners.onSuccess || listeners.onFailure
    ? new ListenerSink(listeners)
    : CHANNELS_ONLY;
}
