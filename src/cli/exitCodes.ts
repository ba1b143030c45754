// The CLI's exit codes. A script can tell the four outcomes apart: the answer is yes, the answer
// is no, the question was malformed, or difftry itself failed.

/** The run worked and found no problem. */
export const EXIT_OK = 0;
/**
 * The run worked and its answer is negative: a sweep point did not converge (`analyze`), no
 * retry limits meet the constraints (`tune`), a counterexample was found (`verify-uniqueness`).
 */
export const EXIT_NEGATIVE = 1;
/** Bad input: a network file, a flag or an output path; one line on stderr, nothing on stdout. */
export const EXIT_BAD_INPUT = 2;
/** difftry failed (a bug): the stack trace on stderr (EX_SOFTWARE of sysexits.h). */
export const EXIT_INTERNAL = 70;
/** A run stopped by Ctrl-C (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;
