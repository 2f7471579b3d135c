// The optional native addon (native/unix-fd.c) behind a typed surface: connect to a Unix domain
// socket, send bytes with descriptors attached (SCM_RIGHTS), receive bytes and any descriptors
// that came with them. Loaded once per process; when it cannot be, short-circuit reads are off.
import type { Socket } from 'node:net';
import { getSystemErrorName } from 'node:util';
import { loadNativeAddon, loadOnce } from '../native-addon-load.js';
import nativeAddons from '../native-addons.cjs';

/** What one receive returned: the bytes (empty at the end of the stream) and the descriptors passed with them. */
export interface Received {
  data: Buffer;
  fds: number[];
}

/** The addon's calls. Every fd is a plain integer descriptor; the caller closes what it gets. */
export interface UnixFd {
  /** A non-blocking stream socket connected to `path`; throws a {@link UnixFdCallError} (ENOENT, ECONNREFUSED, …). */
  connect(path: string): number;
  /** One non-blocking sendmsg of `data` with `fds` attached; returns the bytes sent (throws EAGAIN when the socket is full). */
  send(fd: number, data: Buffer, fds: readonly number[]): number;
  /** Waits up to `timeoutMs` for the socket to be readable, then one recvmsg of at most `maxBytes`. */
  receive(fd: number, maxBytes: number, timeoutMs: number): Promise<Received>;
  close(fd: number): void;
}

/** A failed system call of the addon, with the errno's name as `code`. */
export class UnixFdCallError extends Error {
  readonly code: string;
  readonly syscall: string;
  constructor(cause: { message: string; errno?: unknown; syscall?: unknown }) {
    super(cause.message);
    this.name = 'UnixFdCallError';
    this.syscall = typeof cause.syscall === 'string' ? cause.syscall : 'unknown';
    this.code = typeof cause.errno === 'number' ? getSystemErrorName(-cause.errno) : 'UNKNOWN';
  }
}

interface RawAddon {
  connect(path: string): number;
  send(fd: number, data: Buffer, fds: number[]): number;
  receive(fd: number, maxBytes: number, timeoutMs: number): Promise<Received>;
  close(fd: number): void;
}

function isRawAddon(value: unknown): value is RawAddon {
  const v = value as Partial<Record<keyof RawAddon, unknown>> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.connect === 'function' &&
    typeof v.send === 'function' &&
    typeof v.receive === 'function' &&
    typeof v.close === 'function'
  );
}

function rethrow(err: unknown): never {
  // Duck-typed: the addon's errors come from the realm that loaded it, which need not be ours.
  const e = err as { message?: unknown; errno?: unknown } | null;
  if (typeof e === 'object' && e !== null && typeof e.errno === 'number' && typeof e.message === 'string')
    throw new UnixFdCallError({ ...e, message: e.message });
  throw err;
}

function wrap(raw: RawAddon): UnixFd {
  return {
    connect(path) {
      try {
        return raw.connect(path);
      } catch (err) {
        return rethrow(err);
      }
    },
    send(fd, data, fds) {
      try {
        return raw.send(fd, data, [...fds]);
      } catch (err) {
        return rethrow(err);
      }
    },
    receive(fd, maxBytes, timeoutMs) {
      try {
        return raw.receive(fd, maxBytes, Math.max(0, Math.ceil(timeoutMs))).catch(rethrow);
      } catch (err) {
        return rethrow(err);
      }
    },
    close(fd) {
      try {
        raw.close(fd);
      } catch (err) {
        rethrow(err);
      }
    },
  };
}

export type UnixFdLoad = { available: true; unixFd: UnixFd } | { available: false; reason: string };

/** Loads the addon from `path`; never throws. */
export function loadUnixFdFrom(path: string): UnixFdLoad {
  if (process.platform !== 'linux')
    return {
      available: false,
      reason: `descriptor passing is built for Linux only, not ${process.platform}`,
    };
  const load = loadNativeAddon(
    path,
    isRawAddon,
    "fastpath's unix-fd addon",
    'build it with "npm run build:native -w @fastpath/ozone-fs-client"',
  );
  return load.available ? { available: true, unixFd: wrap(load.addon) } : load;
}

/** The built addon, loaded on first use; when unavailable, the reason is logged once (NODE_DEBUG=fastpath-ozone). */
export const loadUnixFd: () => UnixFdLoad = loadOnce(
  () => loadUnixFdFrom(nativeAddons.addonPaths.unixFd),
  'short-circuit reads unavailable',
);

/** The descriptor under a connected `net.Socket` (Node keeps it on the socket's handle on Unix). */
export function socketFd(socket: Socket): number {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0)
    throw new Error('the socket has no file descriptor (closed, or not a Unix socket)');
  return fd;
}
