/**
 * `text` with the XML special characters escaped, safe in element text and in a double-quoted
 * attribute.
 * @example
 * ```ts
 * escapeXml('a & <b>'); // 'a &amp; &lt;b&gt;'
 * ```
 */
export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}
