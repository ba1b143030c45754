/**
 * The names a request header could carry that an application might read as `header`: any case,
 * and `_` for any `-` (`x_priority`, `X_Priority`, `x-PRIORITY` for `x-priority`). CGI-style
 * frameworks (WSGI, Rack, PHP behind FastCGI) fold `-` and `_` into one, so a client sending
 * `x_priority: high` past an edge that replaced only `x-priority` could still raise its class.
 * The inbound listener drops every header this predicate accepts before the application sees the
 * request, and then sets `header` itself.
 * @example
 * ```ts
 * const spoofs = classHeaderVariant('x-priority');
 * spoofs('X_Priority'); // true
 * spoofs('x-priority-hint'); // false
 * ```
 */
export function classHeaderVariant(header: string): (name: string) => boolean {
  const folded = foldHeaderName(header);
  return (name) => name.length === folded.length && foldHeaderName(name) === folded;
}

/** `X_Priority` → `x-priority`: lower case, `_` read as `-`. */
function foldHeaderName(name: string): string {
  return name.toLowerCase().replaceAll('_', '-');
}
