import { significant } from 'difftry/report';

/** Seconds as the view prints them: 4 significant digits, as `difftry timeouts fit` does. */
export function secondsText(valueS: number): string {
  return `${significant(valueS)} s`;
}
