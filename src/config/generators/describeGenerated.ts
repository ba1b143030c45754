/** How a generated network's description names where its randomness came from. */
export function randomSourceName(seed: number | undefined): string {
  return seed === undefined ? 'an injected random source' : `seed ${seed}`;
}

/** `count` and `noun`, with an `s` unless there is exactly one: `1 class`, `3 services`. */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : noun.endsWith('s') ? 'es' : 's'}`;
}
