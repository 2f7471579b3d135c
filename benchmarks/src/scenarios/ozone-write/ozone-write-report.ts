import os from 'node:os';
import {
  formatRatioWithRange,
  formatSiWithRange,
  markdownTable,
  runLoadNote,
  type Summary,
} from '../../harness/index.js';
import { clientPropertiesText } from '../ozone-read/client-property-flag.js';
import { CLIENT_LABEL, CLIENTS, mibCeiling, type RowComparison } from './ozone-write-results.js';
import { EC_REPLICATION, formatBytes, rowLabel, type OzoneWriteSettings } from './ozone-write-settings.js';

const ranged = (s: Summary | undefined): string =>
  s === undefined ? '—' : formatSiWithRange(s.median, s.min, s.max);
const ratio = (r: { ratio: number; min: number; max: number } | undefined): string =>
  r === undefined ? '—' : formatRatioWithRange(r.ratio, r.min, r.max);

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** A goal's verdict as the tables show it. */
export function verdict(met: boolean | null): string {
  return met === null ? 'not measured' : met ? 'met' : '**missed**';
}

/** The goals of one row, as the combined report lists them. */
export function rowGoals(
  r: RowComparison,
): Array<{ goal: string; target: string; measured: string; met: boolean | null }> {
  return [
    {
      goal: `${r.label}: fastpath MiB/s ≥ 1× Ozone's Java client`,
      target: '≥ 1×',
      measured: r.ratios ? ratio(r.ratios.mibPerSec) : 'not measured',
      met: r.goals.throughput,
    },
    {
      goal: `${r.label}: fastpath CPU per MiB ≤ 1× Ozone's Java client`,
      target: '≤ 1×',
      measured: r.ratios ? ratio(r.ratios.cpuMsPerMiB) : 'not measured',
      met: r.goals.cpuPerMiB,
    },
  ];
}

/**
 * Where the machine's cores went in each row, per client: its own CPU and the cluster's per MiB,
 * the cores busy, and the MiB/s that a client costing nothing could reach with the cluster
 * needing what it needed; null where no cluster CPU was read.
 */
export function machineTable(rows: readonly RowComparison[], cores: number): string | null {
  const lines = rows.flatMap((r) =>
    CLIENTS.flatMap((client) => {
      const c = r.clients[client];
      const ceiling = mibCeiling(r, client, cores);
      if (!c?.clusterCpuMsPerMiB || !ceiling) return [];
      return [
        [
          r.label,
          CLIENT_LABEL[client],
          ranged(c.cpuMsPerMiB),
          ranged(c.clusterCpuMsPerMiB),
          ranged(c.busyCores),
          ceiling.mibPerSec.toFixed(0),
          ceiling.againstJava === null ? '—' : `${ceiling.againstJava.toFixed(2)}×`,
          ceiling.freeClient?.againstJava == null ? '—' : `${ceiling.freeClient.againstJava.toFixed(2)}×`,
        ],
      ];
    }),
  );
  if (lines.length === 0) return null;
  return [
    `Where the ${cores} cores went: the cluster's process tree's CPU (user + system, read from /proc around each write) per MiB the client wrote, ` +
      "the cores busy (the client's CPU and the cluster's over the write's time), and the most MiB/s any client could write here given the cluster's CPU per MiB " +
      `(${cores} cores ÷ cluster CPU per MiB, as if the client cost nothing), beside Java's measured MiB/s: a ceiling under a MiB/s goal means no client meets it on this machine. ` +
      "The last column is the tighter bound of the machine as busy as it was (cores busy ÷ cluster CPU per MiB: the client's own CPU given to the cluster, the cores the cluster left idle while it waited on its disk still idle) ÷ Java's MiB/s: what this client would reach if it cost nothing.",
    '',
    markdownTable(
      [
        'row',
        'client',
        { header: 'client CPU ms/MiB', align: 'right' },
        { header: 'cluster CPU ms/MiB', align: 'right' },
        { header: 'cores busy', align: 'right' },
        { header: 'MiB/s ceiling', align: 'right' },
        { header: "ceiling ÷ Java's MiB/s", align: 'right' },
        { header: "free client ÷ Java's MiB/s", align: 'right' },
      ],
      lines,
    ),
  ].join('\n');
}

/** The scenario's Markdown: what to read first, the ratios with the goals, the figures per client, problems, load. */
export function ozoneWriteReport(
  rows: readonly RowComparison[],
  context: {
    quick: boolean;
    settings: OzoneWriteSettings;
    cluster: string;
    javaVersion: string | undefined;
    javaHeapMb: number | undefined;
    loadAtStart: readonly number[];
    loadAtEnd: readonly number[];
  },
): string {
  const s = context.settings;
  const cores = os.cpus().length;
  const load = runLoadNote(context.loadAtStart, context.loadAtEnd, cores);
  const withJava = rows.some((r) => r.clients.java !== undefined);
  const ratis = s.rows.some((id) => s.shapes[id].replication === 'THREE' && !s.shapes[id].dataStream);
  const streamed = s.rows.some((id) => s.shapes[id].dataStream);
  const ec = s.rows.some((id) => s.shapes[id].replication !== 'THREE');
  const ratios = markdownTable(
    [
      'row',
      { header: 'MiB/s fastpath ÷ Java (goal ≥ 1×)', align: 'right' },
      'throughput goal',
      { header: 'CPU/MiB fastpath ÷ Java (goal ≤ 1×)', align: 'right' },
      'CPU goal',
      { header: 'keys/s ÷', align: 'right' },
      { header: 'p99 ÷ (lower is better)', align: 'right' },
    ],
    rows.map((r) => [
      r.label,
      ratio(r.ratios?.mibPerSec),
      verdict(r.goals.throughput),
      ratio(r.ratios?.cpuMsPerMiB),
      verdict(r.goals.cpuPerMiB),
      ratio(r.ratios?.keysPerSec),
      ratio(r.ratios?.p99Ms),
    ]),
  );
  const figures = markdownTable(
    [
      'row',
      'client',
      { header: 'MiB/s', align: 'right' },
      { header: 'keys/s', align: 'right' },
      { header: 'p50 ms/key', align: 'right' },
      { header: 'p99 ms/key', align: 'right' },
      { header: 'client CPU ms/MiB', align: 'right' },
      { header: 'keys written', align: 'right' },
      { header: 'errors', align: 'right' },
      { header: 'verified by fastpath', align: 'right' },
      ...(s.crossRead ? [{ header: "fastpath's keys verified by Java", align: 'right' as const }] : []),
    ],
    rows.flatMap((r) =>
      CLIENTS.flatMap((client) => {
        const c = r.clients[client];
        if (!c) return [];
        const errors = c.writeErrors + c.verifyFailures + (c.crossFailures ?? 0);
        return [
          [
            r.label,
            CLIENT_LABEL[client],
            ranged(c.mibPerSec),
            ranged(c.keysPerSec),
            ranged(c.p50Ms),
            ranged(c.p99Ms),
            ranged(c.cpuMsPerMiB),
            String(c.keysWritten),
            errors === 0 ? '0' : `**${errors}**`,
            `${c.keysVerified}/${c.keysWritten + c.writeErrors}`,
            ...(s.crossRead
              ? [c.crossVerified === null ? '—' : `${c.crossVerified}/${c.keysWritten + c.writeErrors}`]
              : []),
          ],
        ];
      }),
    ),
  );
  const machine = machineTable(rows, cores);
  const problems = rows.reduce((n, r) => n + r.problems, 0);
  const stopped = rows.flatMap((r) =>
    CLIENTS.flatMap((client) => {
      const e = r.stopped[client];
      return e === undefined ? [] : [`- ${r.label}, ${CLIENT_LABEL[client]}: ${e.split('\n')[0]}`];
    }),
  );
  const shapes = s.rows.map((id) => rowLabel(s.shapes[id])).join('; ');
  return [
    withJava
      ? 'Read first: **MiB/s fastpath ÷ Java** per row (the goal is at least 1× in every row), then **CPU/MiB fastpath ÷ Java** (at most 1×), and the errors column (must be 0).'
      : "Read first: MiB/s and client CPU per MiB per row, and the errors column (must be 0). Ozone's Java client runs only with `--cluster real`: no ratios here.",
    '',
    load.line,
    ...(context.quick
      ? [
          '',
          `A \`--quick\` run, smaller than the issue's rows (${shapes}; ${plural(s.passes, 'pass', 'passes')}), to show the benchmark works; not figures to quote.`,
        ]
      : []),
    '',
    ...(problems > 0
      ? [
          `**${problems} key write(s) or read-back(s) failed**: the figures below do not stand. See the case files and run.log.`,
          '',
        ]
      : []),
    `Cluster: ${context.cluster}.`,
    `${withJava ? 'Both clients' : 'The client'}: keys in an OBJECT_STORE bucket, CreateKey with the key's size and replication, write calls of ${formatBytes(s.writeBytes)}, Ozone's client defaults: ` +
      (ratis
        ? 'RATIS/THREE keys in 4 MiB chunks, PutBlock every 16 MiB, at most 32 MiB unacknowledged, 256 MiB blocks, watch ALL_COMMITTED; '
        : '') +
      (streamed
        ? "the rows marked streamed with Ratis streaming (fastpath with `ozone.fs.datastream.enabled` and a threshold of 0, Java with `OzoneBucket#createStreamKey`): 1 MiB packets to the pipeline's DataStream ports, routed along it, PutBlock through Ratis every 16 MiB, at most 64 MiB unacknowledged; " +
          'the datanodes run with `hdds.container.ratis.datastream.enabled`; '
        : '') +
      (ec
        ? `${EC_REPLICATION} keys (the rows so marked, ${s.datanodes} datanodes) in stripes of 3 data and 2 parity cells of 1 MiB, each cell one WriteChunk to its datanode's standalone port, then a PutBlock to all five, no Ratis and no watch; `
        : '') +
      'CRC32 per 16 KiB. ' +
      "fastpath's writers share one client in a Node process of their own; " +
      (context.javaVersion
        ? `Ozone ${context.javaVersion}'s Java client (\`OzoneClientFactory.getRpcClient\`, \`OzoneBucket#createKey\`${streamed ? ' or `#createStreamKey`' : ''}) in a JVM of its own (-Xmx${context.javaHeapMb ?? '?'}m), one thread per writer sharing one client. `
        : '') +
      'CPU is each client process’s CPU time over the pass (user + system). A key’s latency runs from CreateKey to its commit. ' +
      `Median of ${plural(s.passes, 'pass', 'passes')} (min–max)${withJava ? '; the clients take turns going first; ratios are of medians, their range the per-pass ratios of paired passes' : ''}. ` +
      "After each pass, outside the measured time, fastpath checks that the OM records every key as its row's replication type (RATIS or EC), reads it back whole with checksums verified and compares it with what was written" +
      (s.crossRead ? ", Ozone's Java client does the same with fastpath's keys" : '') +
      ', and the keys are deleted.',
    ...(Object.keys(s.clientProperties).length > 0
      ? [
          '',
          `**Client properties set on fastpath's clients** (\`--client-property\`, after the scenario's own; not on Java's): ` +
            `${clientPropertiesText(s.clientProperties)}. The rows' ratios compare fastpath so set with Java at its defaults.`,
        ]
      : []),
    '',
    ...(withJava ? [ratios, ''] : []),
    figures,
    ...(machine ? ['', machine] : []),
    ...(stopped.length > 0 ? ['', 'Stopped early:', '', ...stopped] : []),
  ].join('\n');
}
