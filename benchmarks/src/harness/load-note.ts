// The line a report says the machine's load with. Figures taken while other work shared the
// cores are not figures; but a run's own cluster and clients load the machine too, so the load at
// its end says nothing about other work: a run is judged by the load it started on, and the end's
// is shown beside it.

/** Load averages beyond this many per core mean the figures were taken under load. */
export const LOADED_PER_CORE = 0.5;

const figures = (load: readonly number[]): string => load.map((l) => l.toFixed(2)).join(' / ');

/** Whether a 1-minute load average means a loaded machine, and the line the report says it with. */
export function loadNote(loadAverage: readonly number[], cores: number): { loaded: boolean; line: string } {
  const one = loadAverage[0] ?? 0;
  const loaded = one > cores * LOADED_PER_CORE;
  return {
    loaded,
    line: loaded
      ? `**Taken under load**: load average ${figures(loadAverage)} (1/5/15 min) on ${cores} cores; other work shared the CPUs, so these figures are not to be quoted.`
      : `Load average ${figures(loadAverage)} (1/5/15 min) on ${cores} cores.`,
  };
}

/**
 * A run's load line: judged by the load at its start ({@link loadNote}), with the load at its end
 * beside it, which counts the run's own cluster and clients.
 */
export function runLoadNote(
  loadAtStart: readonly number[],
  loadAtEnd: readonly number[],
  cores: number,
): { loaded: boolean; line: string } {
  const start = loadNote(loadAtStart, cores);
  return {
    loaded: start.loaded,
    line: `${start.line.replace(/ \(1\/5\/15 min\)/, ' (1/5/15 min) at the start')} At the end ${figures(loadAtEnd)}, the run's own cluster and clients included.`,
  };
}
