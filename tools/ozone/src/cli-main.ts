// Entry point of the fastpath-ozone command (bin/fastpath-ozone.js runs it through tsx).
import { runCli } from './cli.js';

const stopRequested = new Promise<string>((resolve) => {
  // Later signals are ignored: stopping is bounded, and a terminal sends SIGINT to both the bin
  // wrapper and this process, which the wrapper then forwards once more.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => resolve(signal));
  // Started by the bin wrapper with an IPC channel: its end means the wrapper is gone.
  if (process.send !== undefined) process.on('disconnect', () => resolve('parent exited'));
});
// Signal handlers do not keep Node running; this does, until the cluster is stopped.
const keepAlive = setInterval(() => undefined, 1 << 30);

runCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  stopRequested,
}).then(
  (code) => {
    clearInterval(keepAlive);
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`fastpath-ozone: ${String(err)}\n`);
    process.exit(1);
  },
);
