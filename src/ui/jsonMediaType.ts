/**
 * Whether a `content-type` names JSON: the media type (RFC 9110 §8.3.1, case-insensitive, before
 * any `;`) is exactly `application/json`, and a `charset` parameter, if any, is UTF-8 (RFC 8259
 * §8.1). `application/jsonfoo` and `application/json-seq` are not JSON; nor is a missing header.
 * @example
 * ```ts
 * isJsonMediaType('application/json; charset=utf-8'); // true
 * isJsonMediaType('application/jsonfoo');              // false
 * ```
 */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [essence = '', ...parameters] = contentType.split(';');
  if (essence.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') return name.trim() !== '' || value === '';
    return /^"?utf-8"?$/i.test(value.trim());
  });
}
