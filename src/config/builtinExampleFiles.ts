/**
 * The built-in examples: name → file under `examples/` (shipped with the package). Without I/O,
 * so that the web UI offers the names `--example` takes; `builtinExample` reads the files.
 */
export const BUILTIN_EXAMPLE_FILES: Readonly<Record<string, string>> = Object.freeze({
  single: 'single-service.yaml',
  'two-tier': 'two-tier.yaml',
  hotel: 'hotel.yaml',
  'hotel-calls': 'hotel-calls.yaml',
});
