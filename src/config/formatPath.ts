/** A field name that reads as it is after a dot; others are written `["my class"]`. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Writes a path into a network file the way a reader would: `services[0].capacity`,
 * `services[1].arrivals.low`, `services[0].arrivals["my class"]`; the empty path (the whole file)
 * is the empty string.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && PLAIN_KEY.test(segment)) {
      text += text === '' ? segment : `.${segment}`;
    } else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}
