// The delay proxy in a process of its own (started by startDelayProxyProcess, or by hand:
// `tsx --conditions development src/delay-proxy-main.ts --target 127.0.0.1:2181 --delay-ms 2`), so
// that its CPU is its own and can be measured apart from whatever it sits between.
import { parseArgs } from 'node:util';
import { startDelayProxy } from './delay-proxy.js';
import type { DelayProxyMessage, DelayProxyRequest } from './start-delay-proxy-process.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { target: { type: 'string' }, 'delay-ms': { type: 'string' } },
});
const proxy = await startDelayProxy({
  target: values.target ?? '',
  delayMs: values['delay-ms'] === undefined ? 0 : Number(values['delay-ms']),
});
const send = (message: DelayProxyMessage): void => {
  if (process.connected) process.send?.(message);
};
process.stdout.write(`connectString=${proxy.connectString}\n`);
send({ kind: 'delay-proxy-listening', connectString: proxy.connectString });

const stop = (): void => {
  void proxy.close().then(() => process.exit(0));
};
if (process.send !== undefined) {
  process.on('message', (message: DelayProxyRequest) => {
    if (message.kind === 'delay-proxy-stats')
      send({ kind: 'delay-proxy-stats', id: message.id, stats: proxy.stats() });
  });
  // The parent closing the channel (or dying) is the signal to stop.
  process.on('disconnect', stop);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, stop);
