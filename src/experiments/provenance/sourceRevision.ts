/**
 * Which code a validation run measured, for the generated pages: the analysis changes, so a
 * table is only worth what its revision says.
 */
import { execFileSync } from 'node:child_process';

/**
 * The revision of the source tree: `DIFFTRY_REVISION` when set (a run in an exported snapshot,
 * which has no Git metadata), else the short commit of `HEAD`, with ` + uncommitted changes in
 * src/` when `src/` differs from it; `unknown` when neither is available.
 */
export function sourceRevision(): string {
  const given = process.env.DIFFTRY_REVISION;
  if (given !== undefined && given.trim() !== '') return given.trim();
  try {
    const git = (args: string[]) =>
      execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const commit = git(['rev-parse', '--short', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--', 'src']) !== '';
    return dirty ? `${commit} + uncommitted changes in src/` : commit;
  } catch {
    return 'unknown';
  }
}
