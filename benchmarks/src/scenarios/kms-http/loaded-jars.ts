import { readdirSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';

/** A jar file by Maven's naming, `<artifact>-<version>.jar`. */
export interface JarName {
  artifact: string;
  version: string;
}

/**
 * Splits a jar file name into artifact and version: the version starts at the first `-` followed
 * by a digit (`hadoop-common-3.4.2.jar`, `jetty-util-9.4.57.v20241219.jar`). Null for a name
 * without one.
 */
export function parseJarName(file: string): JarName | null {
  const match = /^(.+?)-(\d[^/]*)\.jar$/.exec(basename(file));
  return match ? { artifact: match[1] as string, version: match[2] as string } : null;
}

/**
 * The jar files process `pid` holds open, by file name, sorted: what a JVM has actually loaded
 * classes from (its class loaders keep each jar open once used). Null where /proc is not readable.
 */
export function openJarFiles(pid: number): string[] | null {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  const jars = new Set<string>();
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.endsWith('.jar')) jars.add(basename(target));
    } catch {
      // closed while we looked
    }
  }
  return [...jars].sort();
}

/**
 * Checks that every `expected` artifact is among `loaded` at the expected version. Returns the
 * problems (empty when all are there), each naming what was found instead.
 */
export function checkLoadedJars(loaded: readonly string[], expected: readonly JarName[]): string[] {
  const parsed = loaded.map(parseJarName).filter((j): j is JarName => j !== null);
  return expected.flatMap((want) => {
    const found = parsed.filter((j) => j.artifact === want.artifact);
    if (found.some((j) => j.version === want.version)) return [];
    return [
      found.length === 0
        ? `${want.artifact} ${want.version} is not loaded`
        : `${want.artifact} ${found.map((j) => j.version).join(', ')} is loaded, expected ${want.version}`,
    ];
  });
}

/** `artifact version` of each loaded jar whose artifact is in `artifacts`, in that order. */
export function versionsOf(loaded: readonly string[], artifacts: readonly string[]): string[] {
  const parsed = loaded.map(parseJarName).filter((j): j is JarName => j !== null);
  return artifacts.flatMap((a) =>
    parsed.filter((j) => j.artifact === a).map((j) => `${j.artifact} ${j.version}`),
  );
}
