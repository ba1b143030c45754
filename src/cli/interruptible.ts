/** Runs `work` with a signal that the first Ctrl-C aborts; the second one kills as usual. */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = () => {
    process.stderr.write('difftry: stopping the testbed (Ctrl-C again to kill)\n');
    controller.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    return await work(controller.signal);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
