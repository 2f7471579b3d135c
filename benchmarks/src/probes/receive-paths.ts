// The receive-paths probe: what it costs a Node process only to take bulk bytes off a loopback
// connection, three ways: Node's HTTP/2 client session (what the datanode transport stands on),
// a plain socket's 'data' events (a fresh Buffer per read), and a plain socket reading into one
// reused buffer (`onread`). Each receiver runs in a process of its own, the three taking turns
// round by round; per path the median and min–max of the rounds: MiB/s, CPU per MiB, garbage
// collections per GiB. It answers one question for the bulk read path: how much of a MiB's CPU is
// the session's before any decoding, checking or copying.
import { formatSiWithRange, markdownTable, runInChild, startChild, summarize } from '../harness/index.js';
import type { PeerCall } from './receive-paths-peer.js';

export const RECEIVE_PATHS = ['http2-session', 'socket-data-events', 'socket-reused-buffer'] as const;
export type ReceivePath = (typeof RECEIVE_PATHS)[number];

/** What one receiver measured. */
export interface ReceiveFigures {
  path: ReceivePath;
  bytes: number;
  mibPerSec: number;
  cpuMicrosPerMib: number;
  /** Garbage collections of any kind while receiving. */
  collections: number;
}

/**
 * Every round's figures, per path, the paths taking turns going first. `peer` is the path of
 * receive-paths-peer.ts (the caller knows where it runs from).
 */
export async function measureReceivePaths(
  options: { mib: number; rounds: number; peer: string },
  onRound?: (round: number, figures: ReceiveFigures[]) => void,
): Promise<Map<ReceivePath, ReceiveFigures[]>> {
  await using server = startChild<PeerCall, { http2: number; tcp: number }>(options.peer, {
    name: 'receive-paths server',
  });
  const ports = await server.call({ op: 'serve', mib: options.mib });
  const results = new Map<ReceivePath, ReceiveFigures[]>(RECEIVE_PATHS.map((p) => [p, []]));
  for (let round = 0; round < options.rounds; round++) {
    const order = RECEIVE_PATHS.map((_, i) => RECEIVE_PATHS[(i + round) % RECEIVE_PATHS.length]!);
    const figures: ReceiveFigures[] = [];
    for (const path of order) {
      const port = path === 'http2-session' ? ports.http2 : ports.tcp;
      const f = await runInChild<PeerCall, ReceiveFigures>(options.peer, { op: 'receive', path, port });
      if (f.bytes !== options.mib * 1048576)
        throw new Error(`${path} received ${f.bytes} bytes, not ${options.mib} MiB`);
      results.get(path)!.push(f);
      figures.push(f);
    }
    onRound?.(round + 1, figures);
  }
  return results;
}

/** The probe's table: per path the median (min–max) of the rounds. */
export function receivePathsTable(results: ReadonlyMap<ReceivePath, readonly ReceiveFigures[]>): string {
  const cell = (values: number[]): string => {
    const s = summarize(values);
    return formatSiWithRange(s.median, s.min, s.max);
  };
  return markdownTable(
    [
      'receive path',
      { header: 'MiB/s', align: 'right' },
      { header: 'CPU µs per MiB', align: 'right' },
      { header: 'collections per GiB', align: 'right' },
    ],
    [...results].map(([path, rounds]) => [
      path,
      cell(rounds.map((r) => r.mibPerSec)),
      cell(rounds.map((r) => r.cpuMicrosPerMib)),
      cell(rounds.map((r) => (r.collections * 1073741824) / r.bytes)),
    ]),
  );
}
