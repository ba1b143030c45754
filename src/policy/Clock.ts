/**
 * A clock in milliseconds. Policies never read `Date.now()` on their own: a policy holds the clock
 * it was given — the real one by default ({@link systemClock}), a fake one in tests, the
 * simulation's virtual time in the simulator — so one policy object behaves the same in all three.
 */
export type Clock = () => number;

/** The wall clock (ms since the epoch): the default clock of policies that run in real time. */
export const systemClock: Clock = () => Date.now();
