/**
 * How far the route probabilities of one class at one service may sum past 1 (rounding in a
 * file's decimals: 0.1 + 0.2 + 0.7). The network file's rules and the simulator's own check of
 * a model both hold routes to it.
 */
export const ROUTE_SUM_TOLERANCE = 1e-9;
