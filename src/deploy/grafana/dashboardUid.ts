/** Grafana's longest dashboard uid. */
export const MAX_UID_LENGTH = 40;

const PREFIX = 'difftry-';

/**
 * A dashboard uid derived from a network's name, the same every time, so that importing a
 * regenerated dashboard replaces the earlier one: `difftry-` and the name in lower case, each run
 * of characters other than letters, digits, `-` and `_` made one `-` (Grafana's uid alphabet),
 * at most {@link MAX_UID_LENGTH} characters. When that loses anything of the name (a character
 * replaced, a capital, a cut), 8 hex digits of a hash of the whole name end the uid, so that
 * two names that read alike (`Hotel Calls`, `hotel-calls`) get two dashboards.
 * @example
 * ```ts
 * dashboardUid('hotel-calls'); // 'difftry-hotel-calls'
 * dashboardUid('Hotel Calls'); // 'difftry-hotel-calls-' + 8 hex digits
 * ```
 */
export function dashboardUid(networkName: string): string {
  const slug = networkName
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+/, '')
    .replace(/-+$/, '');
  const plain = `${PREFIX}${slug}`;
  if (slug === networkName && slug !== '' && plain.length <= MAX_UID_LENGTH) return plain;
  const hash = fnv1a(networkName);
  const room = MAX_UID_LENGTH - PREFIX.length - hash.length - 1;
  const kept = slug.slice(0, room).replace(/-+$/, '');
  return kept === '' ? `${PREFIX}${hash}` : `${PREFIX}${kept}-${hash}`;
}

/** FNV-1a, 32 bits, over the UTF-16 code units of `text`: 8 lower-case hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
