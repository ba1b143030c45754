/**
 * A clock in milliseconds. Policies never read `Date.now()` themselves: executors pass the real
 * clock, tests a fake one, and the simulator its virtual time, so one policy object behaves the
 * same in all three.
 */
export type Clock = () => number;
