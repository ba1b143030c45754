/**
 * The CSS variable that colours class `classIndex` of `classCount` in every chart: the highest
 * class `--high`, the lowest `--low`, those between `--class-2` and `--class-3` in turn.
 */
export function classColorVariable(classIndex: number, classCount: number): string {
  if (classIndex === 0) return '--high';
  if (classIndex === classCount - 1) return '--low';
  return classIndex % 2 === 1 ? '--class-2' : '--class-3';
}
