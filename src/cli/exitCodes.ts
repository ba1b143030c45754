/** Exit code of a run stopped by Ctrl-C (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;
