import type { AttemptOutcome } from '../../policy/retry/AttemptOutcome.js';

// What the client of a simulated hop makes of an attempt, as the runtime's client would: one
// frozen outcome each, handed to the hop's `CallTracker` for every attempt.

/** A rejected attempt, as the runtime's client sees it: the server answered 503. */
export const REJECTED: AttemptOutcome = Object.freeze({ kind: 'status', status: 503 });
/** An attempt its client abandoned at its per-try timeout. */
export const TIMED_OUT: AttemptOutcome = Object.freeze({ kind: 'timeout' });
/** An attempt served (and, in call-graph mode, whose calls all succeeded). */
export const SERVED: AttemptOutcome = Object.freeze({ kind: 'success' });
