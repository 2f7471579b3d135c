const VERSION = /^(\d+)\.(\d+)\.(\d+)$/;

/**
 * Whether `spec` is a real version range that `version` satisfies, in the one form the release's
 * version actions write between packages: a caret range (`^0.2.0`: >=0.2.0 <0.3.0; `^1.2.0`:
 * >=1.2.0 <2.0.0). An exact version pins one build of a sibling and makes two packages a team
 * pins separately install two copies; `*`, `file:` and `workspace:` mean nothing outside this
 * repository.
 *
 * @example
 * ```ts
 * isCaretRangeFor('^0.2.0', '0.2.3'); // true
 * isCaretRangeFor('0.2.0', '0.2.0'); // false: exact
 * ```
 */
export function isCaretRangeFor(spec: string, version: string): boolean {
  const base = VERSION.exec(spec.startsWith('^') ? spec.slice(1) : '');
  const v = VERSION.exec(version);
  if (base === null || v === null) return false;
  const [b, x] = [base.slice(1).map(Number), v.slice(1).map(Number)] as [number[], number[]];
  const [bMajor, bMinor, bPatch] = b as [number, number, number];
  const [major, minor, patch] = x as [number, number, number];
  if (major !== bMajor) return false;
  if (bMajor === 0 && minor !== bMinor) return false;
  if (minor !== bMinor) return minor > bMinor;
  return patch >= bPatch;
}
