// Loaded with `--import` (through NODE_OPTIONS, so node:cluster workers load it too) into a
// fastpath-kms the kms-http benchmark profiles (`--profile-fleet`), when the environment names a
// directory (server-profile-probe.ts). It runs without a TypeScript loader, as the server does:
// kms-server-bundle.ts compiles it into one file beside the server's bundle. Once loaded it writes
// `<dir>/<pid>.ready` (the load generator signals only the processes that wrote one). The first
// signal starts V8's profiler on every thread of the process (`runProfiled`, the harness's), the
// next stops it: the main thread's profile goes to `<dir>/<pid>-<n>.cpuprofile`, a worker
// thread's beside it, then `<dir>/<pid>-<n>.done` says they are complete (with the error, if
// profiling failed). Nothing runs until the first signal, so a measured window before it pays
// nothing for the probe.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runProfiled } from '../../harness/thread-profiles.js';
import { PROFILE_PROBE_DIR_ENV, PROFILE_PROBE_SIGNAL } from './profile-probe-protocol.js';

const dir = process.env[PROFILE_PROBE_DIR_ENV];
if (dir) {
  let seq = 0;
  let stop: (() => void) | undefined;
  const done = (name: string, outcome: { error?: string }): void => {
    const file = join(dir, `${name}.done`);
    writeFileSync(`${file}.tmp`, JSON.stringify(outcome));
    renameSync(`${file}.tmp`, file);
  };
  process.on(PROFILE_PROBE_SIGNAL, () => {
    if (stop) {
      stop();
      stop = undefined;
      return;
    }
    seq++;
    const name = `${process.pid}-${seq}`;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    void runProfiled(join(dir, `${name}.cpuprofile`), () => stopped).then(
      () => done(name, {}),
      (error: unknown) => done(name, { error: String(error) }),
    );
  });
  writeFileSync(join(dir, `${process.pid}.ready`), '');
}
