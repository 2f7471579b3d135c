/** Hadoop's `KeyProvider.buildVersionName`: `<name>@<version>`. */
export function buildVersionName(name: string, version: number): string {
  return `${name}@${version}`;
}

/**
 * Splits a version name at its last `@`. `undefined` when it is not `<name>@<canonical decimal>`
 * (such a name names no version, as an unknown alias names no entry in Hadoop's keystores).
 */
export function parseVersionName(versionName: string): { name: string; version: number } | undefined {
  const at = versionName.lastIndexOf('@');
  if (at <= 0) return undefined;
  const digits = versionName.slice(at + 1);
  if (!/^(0|[1-9][0-9]{0,8})$/.test(digits)) return undefined;
  return { name: versionName.slice(0, at), version: Number(digits) };
}
