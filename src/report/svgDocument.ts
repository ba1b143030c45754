/**
 * The frame every chart of the generated docs is written in: one SVG document on a white
 * background, one element a line, coordinates with one decimal. The output is deterministic text,
 * so a re-run that changes no figure changes no byte.
 */

/** A coordinate or length as the charts write it: one decimal (`12.25` → `'12.3'`). */
export function px(value: number): string {
  return value.toFixed(1);
}

/**
 * An SVG document of `width` × `height` px on white, Helvetica 12 px, holding `body` one element
 * a line; empty strings in `body` (an element a chart chose not to draw) are dropped.
 * `width` and `height` are written as given, so a caller keeps its own number format.
 * @example
 * ```ts
 * svgDocument('720', '440', ['<text x="10" y="20">hi</text>']);
 * ```
 */
export function svgDocument(width: string, height: string, body: readonly string[]): string {
  return `${[
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...body.filter((element) => element !== ''),
    '</svg>',
  ].join('\n')}\n`;
}
