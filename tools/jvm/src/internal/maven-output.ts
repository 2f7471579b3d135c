// Reading Maven's console output (batch mode): progress lines and the artifact a failure names.

const DOWNLOADED = /^\[INFO\] Downloaded from [^:]+: \S+ \((\d+(?:\.\d+)?) (B|kB|MB|GB)(?: at [^)]*)?\)/;
const UNIT_BYTES: Readonly<Record<string, number>> = { B: 1, kB: 1e3, MB: 1e6, GB: 1e9 };

/** The size of a `Downloaded from …` line in bytes (Maven prints SI units), else `undefined`. */
export function downloadedBytes(line: string): number | undefined {
  const m = DOWNLOADED.exec(line);
  if (m === null) return undefined;
  return Math.round(Number(m[1]) * (UNIT_BYTES[m[2] as string] ?? 1));
}

/** Whether a line reports a transfer (worth passing on as progress). */
export function isTransferLine(line: string): boolean {
  return /^\[INFO\] Download(ing|ed) from /.test(line);
}

const COORDINATES = String.raw`([\w.-]+:[\w.-]+(?::[\w.-]+){1,3})`;
// Most specific first: the file that could not be fetched, then the descriptor, then the chain.
const FAILURE_PATTERNS: readonly RegExp[] = [
  new RegExp(String.raw`Could not find artifact ${COORDINATES}`),
  new RegExp(String.raw`the artifact ${COORDINATES} has not been downloaded`),
  new RegExp(String.raw`Could not transfer artifact ${COORDINATES}`),
  new RegExp(String.raw`Failed to read artifact descriptor for ${COORDINATES}`),
  new RegExp(String.raw`artifacts? could not be resolved: ${COORDINATES}`),
  new RegExp(
    String.raw`Non-resolvable (?:parent|import) POM (?:for [^:]+:[^:]+:[^:]+: )?Could not find artifact ${COORDINATES}`,
  ),
  new RegExp(String.raw`Plugin ${COORDINATES} or one of its dependencies could not be resolved`),
];

/** The first artifact Maven's output names as failing to resolve, or `undefined`. */
export function failingArtifact(output: string): string | undefined {
  for (const pattern of FAILURE_PATTERNS) {
    const m = pattern.exec(output);
    if (m !== null) return m[1];
  }
  // "Failed to collect dependencies at a:b:jar:1 -> c:d:jar:2": the last link failed.
  const chain = /Failed to collect dependencies at ((?:[\w.-]+:[\w.:-]+(?: -> )?)+)/.exec(output);
  const last = chain?.[1]?.split(' -> ').pop();
  return last === undefined || last === '' ? undefined : last.replace(/:$/, '');
}

/** Maven's `[ERROR]` lines (without the prefix and the help boilerplate), for messages. */
export function errorLines(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('[ERROR]'))
    .map((line) => line.slice('[ERROR]'.length).trim())
    .filter(
      (line) =>
        line !== '' && !/^(To see the full|Re-run Maven|For more information|\[Help|-> \[Help)/.test(line),
    );
}
