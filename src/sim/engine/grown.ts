/** A typed array of the same kind as `old`, `size` long, holding `old`'s values first. */
export function grown<T extends Int32Array | Float64Array | Uint8Array>(old: T, size: number): T {
  const next = new (old.constructor as new (length: number) => T)(size);
  next.set(old);
  return next;
}
