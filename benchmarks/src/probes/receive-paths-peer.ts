// One side of the receive-paths probe, in a process of its own so that its CPU and its garbage
// collections are its own (the harness's child calls). `serve`: an HTTP/2 server and a plain TCP
// server on loopback, each sending `mib` MiB in 1 MiB writes to whoever connects (HTTP/2: one
// stream per request); answers their ports. `receive`: takes them one way; answers the figures.
import http2 from 'node:http2';
import net from 'node:net';
import { PerformanceObserver } from 'node:perf_hooks';
import { serveCalls } from '../harness/index.js';
import type { ReceiveFigures, ReceivePath } from './receive-paths.js';

/** The calls the probe makes of this process. */
export type PeerCall = { op: 'serve'; mib: number } | { op: 'receive'; path: ReceivePath; port: number };

const MIB = 1 << 20;

/** Sends `mib` MiB to `out` in 1 MiB writes, waiting for drains, then ends it. */
function pump(
  out: { write(b: Buffer): boolean; once(e: 'drain', f: () => void): unknown; end(): unknown },
  mib: number,
): void {
  const chunk = Buffer.alloc(MIB, 0x5a);
  let sent = 0;
  const more = (): void => {
    while (sent < mib) {
      sent++;
      if (!out.write(chunk)) {
        out.once('drain', more);
        return;
      }
    }
    out.end();
  };
  more();
}

function serve(mib: number): Promise<{ http2: number; tcp: number }> {
  const h2 = http2.createServer();
  h2.on('stream', (stream) => {
    stream.respond({ ':status': 200 });
    pump(stream, mib);
  });
  const raw = net.createServer((socket) => pump(socket, mib));
  return new Promise((resolve) =>
    h2.listen(0, '127.0.0.1', () =>
      raw.listen(0, '127.0.0.1', () =>
        resolve({
          http2: (h2.address() as net.AddressInfo).port,
          tcp: (raw.address() as net.AddressInfo).port,
        }),
      ),
    ),
  );
}

function receive(path: ReceivePath, port: number): Promise<ReceiveFigures> {
  return new Promise((resolve) => {
    let collections = 0;
    new PerformanceObserver((list) => (collections += list.getEntries().length)).observe({
      entryTypes: ['gc'],
    });
    let bytes = 0;
    const started = performance.now();
    const cpu = process.cpuUsage();
    let close = (): void => {};
    const done = (): void => {
      const used = process.cpuUsage(cpu);
      close();
      const mib = bytes / MIB;
      // The observer reports a collection after it ends: let the last ones arrive.
      setImmediate(() =>
        resolve({
          path,
          bytes,
          mibPerSec: mib / ((performance.now() - started) / 1000),
          cpuMicrosPerMib: (used.user + used.system) / mib,
          collections,
        }),
      );
    };
    if (path === 'http2-session') {
      // The datanode session's settings: 1 MiB frames, windows far larger than the transfer's steps.
      const session = http2.connect(`http://127.0.0.1:${port}`, {
        settings: { maxFrameSize: MIB, initialWindowSize: 8 * MIB },
      });
      session.on('connect', () => session.setLocalWindowSize(32 * MIB));
      close = () => session.close();
      const stream = session.request({ ':path': '/' });
      stream.on('data', (d: Buffer) => (bytes += d.length));
      stream.on('end', done);
    } else if (path === 'socket-data-events') {
      const socket = net.connect(port, '127.0.0.1');
      close = () => socket.destroy();
      socket.on('data', (d: Buffer) => (bytes += d.length));
      socket.on('end', done);
    } else {
      const socket = net.connect({
        port,
        host: '127.0.0.1',
        onread: {
          buffer: Buffer.allocUnsafe(MIB),
          callback: (n: number) => {
            bytes += n;
            return true; // keep reading
          },
        },
      });
      close = () => socket.destroy();
      socket.on('end', done);
    }
  });
}

serveCalls<PeerCall, unknown>((call) =>
  call.op === 'serve' ? serve(call.mib) : receive(call.path, call.port),
);
