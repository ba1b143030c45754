/**
 * A clock in milliseconds. Policies never read `Date.now()` themselves: executors pass the real
 * clock, tests a fake one, and the simulator its virtual time, so one policy object behaves the
 * same in all three.
 */
export type Clock = () => number;

/** The wall clock, for executors that run in real time. */
export const systemClock: Clock = () => Date.now();
