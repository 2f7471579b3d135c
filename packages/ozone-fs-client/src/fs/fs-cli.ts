// `fastpath-ozone fs`: Hadoop's `ozone fs` / `hadoop fs` commands over OzoneFileSystem. Exit
// codes: 0 done, 1 the operation failed (one line on stderr), 2 a command line it cannot use.
import { createReadStream, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { once } from 'node:events';
import { userInfo } from 'node:os';
import type { Writable } from 'node:stream';
import { FastpathError } from '@fastpath/core';
import type { FileStatus } from './file-status.js';
import { newFileSystemInstance } from './file-system-cache.js';
import type { OzoneFileSystem } from './ozone-file-system.js';
import { parseOzoneUri } from './ozone-path.js';
import { cliProperties } from '../cli/cli-configuration.js';
import { cliSecurity } from '../cli/cli-security.js';

export const FS_CLI_USAGE = `Usage: fastpath-ozone fs [-D key=value]... [--conf ozone-site.xml]... COMMAND
Commands (paths are ofs://<om>/<volume>/<bucket>/<key> or o3fs://<bucket>.<volume>.<om>/<key> URIs,
or absolute paths of fs.defaultFS):
  -ls <path>                 list a directory (a file lists as itself)
  -stat <path>               type, length, block size, modification time, owner, path
  -cat <path>...             write files to standard output
  -put [-f] <local> <path>   copy a local file in (-f: overwrite)
  -get [-f] <path> <local>   copy a file out (-f: overwrite the local file)
  -mkdir [-p] <path>...      make directories (parents always made, as on Ozone)
  -rm [-r] <path>...         delete (-r: directories and what is under them)
  -mv <src> <dst>            rename within a bucket
Options:
  -D key=value               an Ozone setting (e.g. -D ozone.client.verify.checksum=false)
  --conf <file>              an ozone-site.xml to read (later files and -D win)
  --no-progress              no progress lines for large transfers
The user is HADOOP_USER_NAME, else the OS user. On a secure cluster: Kerberos from the ticket cache
when hadoop.security.authentication is kerberos, and the OM tokens of HADOOP_TOKEN_FILE_LOCATION.
Exit status: 0 done, 1 failed, 2 usage.`;

/** Where the CLI writes; a test passes its own. */
export interface FsCliIo {
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
}

class UsageError extends Error {}

/** Transfers from this size on report progress. */
const PROGRESS_FROM_BYTES = 8 * 1024 * 1024;
const PIECE_BYTES = 4 * 1024 * 1024;

interface Parsed {
  overrides: Record<string, string>;
  confFiles: string[];
  progress: boolean;
  command: string;
  flags: Set<string>;
  args: string[];
}

const COMMANDS: Readonly<Record<string, { flags: readonly string[]; min: number; max: number }>> = {
  '-ls': { flags: [], min: 1, max: 1 },
  '-stat': { flags: [], min: 1, max: 1 },
  '-cat': { flags: [], min: 1, max: Infinity },
  '-put': { flags: ['-f'], min: 2, max: 2 },
  '-get': { flags: ['-f'], min: 2, max: 2 },
  '-mkdir': { flags: ['-p'], min: 1, max: Infinity },
  '-rm': { flags: ['-r', '-R', '-f'], min: 1, max: Infinity },
  '-mv': { flags: [], min: 2, max: 2 },
};

function parse(argv: readonly string[]): Parsed {
  const [group, ...rest] = argv;
  if (group !== 'fs') throw new UsageError(group === undefined ? 'no command' : `unknown command ${group}`);
  const out: Parsed = {
    overrides: {},
    confFiles: [],
    progress: true,
    command: '',
    flags: new Set(),
    args: [],
  };
  let i = 0;
  for (; i < rest.length; i++) {
    const a = rest[i] as string;
    if (a === '-D' || a.startsWith('-D')) {
      const kv = a === '-D' ? rest[++i] : a.slice(2);
      const eq = kv?.indexOf('=') ?? -1;
      if (kv === undefined || eq <= 0) throw new UsageError(`-D needs key=value, got ${kv ?? 'nothing'}`);
      out.overrides[kv.slice(0, eq)] = kv.slice(eq + 1);
    } else if (a === '--conf' || a === '-conf') {
      const file = rest[++i];
      if (!file) throw new UsageError(`${a} needs a file`);
      out.confFiles.push(file);
    } else if (a === '--no-progress') out.progress = false;
    else break;
  }
  const command = rest[i];
  const spec = command === undefined ? undefined : COMMANDS[command];
  if (!spec || command === undefined)
    throw new UsageError(command ? `unknown fs command ${command}` : 'no fs command');
  out.command = command;
  for (i++; i < rest.length; i++) {
    const a = rest[i] as string;
    if (spec.flags.includes(a) && out.args.length === 0) out.flags.add(a);
    else if (a.startsWith('-') && a.length > 1 && out.args.length === 0)
      throw new UsageError(`${command} does not take ${a}`);
    else out.args.push(a);
  }
  if (out.args.length < spec.min || out.args.length > spec.max)
    throw new UsageError(
      `${command} takes ${spec.min === spec.max ? spec.min : `at least ${spec.min}`} path(s)`,
    );
  return out;
}

function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0] as string;
}

/** A progress reporter on stderr: a rewritten line on a terminal, a line per 10% otherwise. */
function progress(
  io: FsCliIo,
  label: string,
  totalBytes: number,
  enabled: boolean,
): (doneBytes: number) => void {
  if (!enabled || totalBytes < PROGRESS_FROM_BYTES) return () => undefined;
  const start = process.hrtime.bigint();
  let lastTenth = -1;
  return (done) => {
    const tenth = Math.floor((done / totalBytes) * 10);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const mib = (n: number): string => (n / 1048576).toFixed(1);
    const line = `${label}: ${mib(done)} of ${mib(totalBytes)} MiB (${Math.floor((done / totalBytes) * 100)}%, ${seconds > 0 ? mib(done / seconds) : '0.0'} MiB/s)`;
    if (io.stderr.isTTY) io.stderr.write(`\r${line}${done >= totalBytes ? '\n' : ''}`);
    else if (tenth !== lastTenth) {
      lastTenth = tenth;
      io.stderr.write(`${line}\n`);
    }
  };
}

async function write(out: Writable, data: Uint8Array): Promise<void> {
  if (!out.write(data)) await once(out, 'drain');
}

function time(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function lsLine(s: FileStatus): string {
  const mode = s.isDirectory ? 'drwxrwxrwx' : '-rw-rw-rw-';
  const replication = s.isDirectory ? '-' : String(s.replication);
  return `${mode} ${replication.padStart(3)} ${s.owner || '-'} ${s.owner || '-'} ${String(s.length).padStart(10)} ${time(s.modificationTime)} ${s.path}`;
}

/** Runs one `fs` command line; resolves to the exit status. */
export async function runFsCli(argv: readonly string[], io: FsCliIo): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parse(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`fastpath-ozone: ${err.message}\n${FS_CLI_USAGE}\n`);
    return 2;
  }
  const { command, args, flags } = parsed;
  const systems = new Map<string, OzoneFileSystem>();
  try {
    const properties = cliProperties(parsed.confFiles, parsed.overrides, io.env);
    const userName = io.env.HADOOP_USER_NAME || userInfo().username;
    const security = await cliSecurity(io.env, (line) => io.stderr.write(`fastpath-ozone: ${line}\n`));
    const defaultFs = properties['fs.defaultFS'];
    const qualify = (path: string): string => {
      if (path.includes('://')) return path;
      if (!defaultFs || !/^(ofs|o3fs):\/\//.test(defaultFs))
        throw new UsageErrorAtRun(`${path}: give an ofs:// or o3fs:// URI (or set fs.defaultFS)`);
      return defaultFs.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
    };
    const fsOf = (uri: string): OzoneFileSystem => {
      const { authority } = parseOzoneUri(uri);
      const key = `${authority.scheme}://${authority.omHost}/${authority.volume ?? ''}/${authority.bucket ?? ''}`;
      let fs = systems.get(key);
      if (!fs) {
        fs = newFileSystemInstance(uri, { userName, properties, security });
        systems.set(key, fs);
      }
      return fs;
    };
    const on = (path: string): [OzoneFileSystem, string] => {
      const uri = qualify(path);
      return [fsOf(uri), uri];
    };

    switch (command) {
      case '-ls': {
        const [fs, uri] = on(args[0] as string);
        const list = await fs.listStatus(uri);
        if ((await fs.getFileStatus(uri)).isDirectory) io.stdout.write(`Found ${list.length} items\n`);
        for (const s of list) io.stdout.write(`${lsLine(s)}\n`);
        break;
      }
      case '-stat': {
        const [fs, uri] = on(args[0] as string);
        const s = await fs.getFileStatus(uri);
        io.stdout.write(
          `${s.isDirectory ? 'directory' : 'regular file'}\t${s.length}\t${s.blockSize}\t${new Date(s.modificationTime).toISOString()}\t${s.owner}\t${s.path}\n`,
        );
        break;
      }
      case '-cat':
        for (const path of args) {
          const [fs, uri] = on(path);
          const stream = await fs.open(uri);
          try {
            const buf = Buffer.allocUnsafe(PIECE_BYTES);
            for (let n; (n = await stream.read(buf)) > 0;)
              await write(io.stdout, Buffer.from(buf.subarray(0, n)));
          } finally {
            stream.close();
          }
        }
        break;
      case '-put': {
        const local = args[0] as string;
        const [fs, uri] = on(args[1] as string);
        const size = statSync(local).size;
        let target = uri;
        const existing = await fs.getFileStatus(uri).catch(() => undefined);
        if (existing?.isDirectory) target = `${uri.replace(/\/+$/, '')}/${local.split('/').pop() as string}`;
        const out = await fs.create(target, { overwrite: flags.has('-f'), sizeBytes: size });
        const report = progress(io, `put ${target}`, size, parsed.progress);
        let done = 0;
        for await (const piece of createReadStream(local, { highWaterMark: PIECE_BYTES })) {
          await out.write(piece as Buffer);
          done += (piece as Buffer).length;
          report(done);
        }
        await out.close();
        break;
      }
      case '-get': {
        const [fs, uri] = on(args[0] as string);
        const local = args[1] as string;
        const file = await open(local, flags.has('-f') ? 'w' : 'wx');
        try {
          const stream = await fs.open(uri);
          try {
            const report = progress(io, `get ${uri}`, stream.length, parsed.progress);
            const buf = Buffer.allocUnsafe(PIECE_BYTES);
            let done = 0;
            for (let n; (n = await stream.read(buf)) > 0;) {
              await file.write(buf, 0, n);
              done += n;
              report(done);
            }
          } finally {
            stream.close();
          }
        } finally {
          await file.close();
        }
        break;
      }
      case '-mkdir':
        for (const path of args) {
          const [fs, uri] = on(path);
          await fs.mkdirs(uri);
        }
        break;
      case '-rm':
        for (const path of args) {
          const [fs, uri] = on(path);
          const deleted = await fs.delete(uri, flags.has('-r') || flags.has('-R'));
          if (!deleted && !flags.has('-f')) throw new FastpathErrorLine(`${uri}: No such file or directory`);
          if (deleted) io.stdout.write(`Deleted ${uri}\n`);
        }
        break;
      case '-mv': {
        const [fs, src] = on(args[0] as string);
        const dst = qualify(args[1] as string);
        if (!(await fs.rename(src, dst)))
          throw new FastpathErrorLine(
            `${src} → ${dst}: rename refused (missing source, existing target or no parent directory)`,
          );
        break;
      }
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageErrorAtRun) {
      io.stderr.write(`fastpath-ozone: ${command}: ${err.message}\n`);
      return 2;
    }
    const code = err instanceof FastpathError ? ` [${err.code}]` : '';
    io.stderr.write(`fastpath-ozone: ${command}: ${oneLine(err)}${code}\n`);
    return 1;
  } finally {
    for (const fs of systems.values()) fs.close();
  }
}

/** A bad path argument found once the configuration is known (exit status 2). */
class UsageErrorAtRun extends Error {}
/** An operation that did not happen, for a one-line message (exit status 1). */
class FastpathErrorLine extends Error {}
