/**
 * difftry/report: how difftry writes its figures as text, for a page or a script that shows them
 * as the CLI and the generated docs do: numbers to a fixed number of decimals or significant
 * digits, fractions as percentages (a figure that is not finite is `n/a`, never `NaN`), and where
 * a sweep's healthy and storm branches end. Pure: no Node built-in, so it runs in a browser too.
 *
 * @example
 * ```ts
 * import { fixed, percent, significant } from 'difftry/report';
 * fixed(1.23456); // '1.23'
 * percent(0.1234); // '12.3 %'
 * significant(0.151662); // '0.1517'
 * ```
 * @module
 */

export { branchesText } from './branchesText.js';
export { fixed, NOT_AVAILABLE, percent, significant } from './numberFormat.js';
