// Loaded with `--import` (through NODE_OPTIONS, so node:cluster workers load it too) into a Node
// server the kms-http benchmark measures, when FASTPATH_BENCH_LOOP_DIR names a directory. It
// measures the event loop from inside the server without changing the server: a delay histogram
// at 1 ms resolution (a coarser one reads its own resolution as delay) and the event-loop
// utilization. Once listening it writes `<dir>/<pid>.ready`: the load generator signals only the
// processes that wrote one (SIGUSR2 would end a process without the listener). On each SIGUSR2
// (sent at the start and at the end of the measured window) it writes `<dir>/<pid>-<seq>.json`
// with the histogram since the previous signal and the running utilization totals, then resets
// the histogram. Plain JavaScript: it is loaded before any TypeScript loader is registered.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const dir = process.env.FASTPATH_BENCH_LOOP_DIR;
if (dir) {
  const resolutionMs = 1;
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  let seq = 0;
  process.on('SIGUSR2', () => {
    seq++;
    const elu = performance.eventLoopUtilization();
    const snapshot = {
      pid: process.pid,
      seq,
      atMs: performance.now(),
      resolutionMs,
      delay: {
        count: histogram.count,
        meanNs: histogram.mean,
        p50Ns: histogram.percentile(50),
        p99Ns: histogram.percentile(99),
        maxNs: histogram.max,
      },
      elu: { idleMs: elu.idle, activeMs: elu.active },
    };
    histogram.reset();
    const file = join(dir, `${process.pid}-${seq}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(snapshot));
    renameSync(`${file}.tmp`, file);
  });
  writeFileSync(join(dir, `${process.pid}.ready`), '');
}
