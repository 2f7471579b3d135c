import { connect } from 'node:net';
import { checkInteger, InvalidOptionError } from '@fastpath/core';
import { FourLetterWordError } from './zookeeper-errors.js';

/** What a server says it is in `srvr`'s `Mode:` line. */
export type ZooKeeperMode = 'standalone' | 'leader' | 'follower' | 'observer' | 'read-only';

/** Options of {@link fourLetterWord}. */
export interface FourLetterWordOptions {
  /** Host of the server. Default `127.0.0.1`. */
  host?: string;
  /** Bound for connecting and reading the whole answer, in milliseconds. Default 2000. */
  timeoutMs?: number;
}

/** Defaults of {@link FourLetterWordOptions}. */
export const DEFAULT_FOUR_LETTER_WORD_OPTIONS = Object.freeze({ host: '127.0.0.1', timeoutMs: 2000 });

/**
 * Sends a four-letter-word command (`ruok`, `srvr`, `mntr`, `stat`, `conf`, `cons`) to a
 * ZooKeeper client port and returns the whole answer. The server must whitelist the word
 * (the fixture whitelists the ones above).
 *
 * @throws FourLetterWordError on a connection error, a timeout (a paused server) or a refusal
 * @example
 * ```ts
 * const answer = await fourLetterWord(zk.nodes[0].clientPort, 'ruok'); // 'imok'
 * ```
 */
export function fourLetterWord(
  port: number,
  word: string,
  options: FourLetterWordOptions = {},
): Promise<string> {
  checkInteger('port', port, 1, 65535);
  if (!/^[a-z]{4}$/.test(word))
    throw new InvalidOptionError('word', `expected four lowercase letters, got "${word}"`);
  const host = options.host ?? DEFAULT_FOUR_LETTER_WORD_OPTIONS.host;
  const timeoutMs = checkInteger(
    'timeoutMs',
    options.timeoutMs ?? DEFAULT_FOUR_LETTER_WORD_OPTIONS.timeoutMs,
    1,
  );
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host, port });
    const settle = (err: FourLetterWordError | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err !== undefined) {
        reject(err);
        return;
      }
      const answer = Buffer.concat(chunks).toString('utf8');
      if (/is not executed because it is not in the whitelist/.test(answer)) {
        reject(new FourLetterWordError(word, port, 'not in the server whitelist (4lw.commands.whitelist)'));
      } else {
        resolve(answer);
      }
    };
    const timer = setTimeout(
      () => settle(new FourLetterWordError(word, port, `no complete answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on('connect', () => socket.end(word));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server closes the connection once it has written the whole answer.
    socket.on('end', () => settle(undefined));
    socket.on('error', (err) => settle(new FourLetterWordError(word, port, err.message, err)));
  });
}

/**
 * Parses the answer of `mntr` (`key<TAB>value` lines) into an object; numeric values become numbers.
 *
 * @example
 * ```ts
 * parseMntr('zk_version\t3.8.0\nzk_znode_count\t5\n'); // { zk_version: '3.8.0', zk_znode_count: 5 }
 * ```
 */
export function parseMntr(text: string): Record<string, number | string> {
  const result: Record<string, number | string> = {};
  for (const line of text.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab <= 0) continue;
    const key = line.slice(0, tab).trim();
    const value = line.slice(tab + 1).trim();
    result[key] = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value) ? Number(value) : value;
  }
  return result;
}

/**
 * The `Mode:` of a `srvr` (or `stat`) answer, or `undefined` when the server does not serve
 * (e.g. an ensemble member without quorum answers "not currently serving requests").
 */
export function parseMode(text: string): ZooKeeperMode | undefined {
  const match = /^Mode: ([a-z-]+)\s*$/m.exec(text);
  const mode = match?.[1];
  switch (mode) {
    case 'standalone':
    case 'leader':
    case 'follower':
    case 'observer':
    case 'read-only':
      return mode;
    default:
      return undefined;
  }
}
