import os from 'node:os';
import { startRatisGroup, startRatisJavaClient } from '@fastpath/ratis-fixture';
import { formatProfileShares, type ProfileSummary } from '../../harness/cpu-profile-summary.js';
import { barChartSvg, startChild, type Scenario, type ScenarioContext } from '../../harness/index.js';
import type { WriterCall } from './fastpath-writer-main.js';
import { clientOrder, loadFigures, type LoadSample } from './load-figures.js';
import { ratisReport } from './ratis-report.js';
import {
  CLIENTS,
  compareSize,
  type ClientRounds,
  type RatisClientName,
  type SizeComparison,
} from './ratis-results.js';
import {
  parseRatisFlags,
  RATIS_FLAGS,
  windowFor,
  WRITE_SIZES,
  type RatisSettings,
  type WriteSize,
} from './ratis-settings.js';

/** Progress units: a group's start counts as much as one load, the profiled load as one more. */
function plannedUnits(s: RatisSettings): number {
  return s.sizes.length * (1 + (s.rounds + 1) * CLIENTS.length + (s.profile ? 1 : 0));
}

/** One size: a fresh group (deleted after, so the disk holds one size's log at a time), both clients, every round. */
async function runSize(
  ctx: ScenarioContext<RatisSettings>,
  size: WriteSize,
  versions: { ratis: string },
): Promise<SizeComparison> {
  const s = ctx.flags;
  const sizeBytes = WRITE_SIZES[size];
  const window = windowFor(s, sizeBytes);
  const writes = s.writes[size];
  ctx.progress.setDetail(`${size}: starting a 3-peer Ratis group`);
  await using group = await startRatisGroup({ heapMb: s.peerHeapMb });
  versions.ratis = group.ratisVersion;
  ctx.log(
    `${size}: group ${group.groupId}, peers ${group.peers.map((p) => `${p.id}=${p.address}`).join(' ')}`,
  );
  await using java = await startRatisJavaClient(group, { outstandingRequests: window });
  ctx.results.recordCommand(
    `java -cp <tools/ratis jars> fastpath.ratisfixture.RatisClientDriver --group ${group.groupId} --outstanding ${window} ${group.peers.map((p) => `--peer ${p.id}=${p.address}`).join(' ')}`,
    `Ratis's own Java client (RaftClient.async()), ${size}`,
  );
  await using writer = startChild<WriterCall, unknown>(
    ctx.sourcePath('scenarios/ratis/fastpath-writer-main.ts'),
    {
      name: `fastpath-writer-${size}`,
      logFile: ctx.results.logPath(`fastpath-writer-${size}`),
      onSpawn: (c) =>
        ctx.results.recordCommand(
          c,
          `fastpath's Ratis client (the client under test) in its own process, ${size}`,
        ),
    },
  );
  await writer.ready;
  ctx.progress.advance(1);

  const measured: Record<RatisClientName, ClientRounds> = { fastpath: { rounds: [] }, java: { rounds: [] } };
  const samples: Record<RatisClientName, LoadSample[]> = { fastpath: [], java: [] };
  const loadTimeoutMs = 900_000;
  const run: Record<RatisClientName, () => Promise<LoadSample>> = {
    fastpath: async () =>
      (await writer.call(
        { op: 'load', sizeBytes, writes, window },
        { timeoutMs: loadTimeoutMs },
      )) as LoadSample,
    java: async () => {
      const r = await java.load({ sizeBytes, writes, window });
      return { writes: r.writes, wallNs: r.wallNs, cpuNs: r.cpuNs, latenciesUs: r.latenciesUs };
    },
  };
  try {
    await writer.call(
      { op: 'open', groupId: group.groupId, peers: [...group.peers], window },
      { timeoutMs: 60_000 },
    );
  } catch (err) {
    measured.fastpath.error = `the client did not open: ${(err as Error).message}`;
  }
  // Round 0 warms both up (JIT, connections, the group's leader found); it is not measured.
  for (let round = 0; round <= s.rounds; round++) {
    for (const client of clientOrder(round, ['java', 'fastpath'] as const)) {
      const what = `${size} · ${client} · ${round === 0 ? 'warm-up' : `round ${round}/${s.rounds}`}`;
      if (ctx.signal.aborted || measured[client].error !== undefined) {
        ctx.progress.advance(1, what);
        continue;
      }
      ctx.progress.setDetail(what);
      try {
        const sample = await run[client]();
        if (round > 0) {
          samples[client].push(sample);
          measured[client].rounds.push(loadFigures(sample, sizeBytes));
        }
      } catch (err) {
        measured[client].error = `${round === 0 ? 'warm-up' : `round ${round}`}: ${(err as Error).message}`;
        ctx.note(`${size}: ${client} stopped: ${(err as Error).message.split('\n')[0]}`);
      }
      ctx.progress.advance(1, what);
    }
  }
  let profile: (ProfileSummary & { file: string }) | undefined;
  if (s.profile && !ctx.signal.aborted && measured.fastpath.error === undefined) {
    const file = `profiles/${size}-fastpath.cpuprofile`;
    ctx.progress.setDetail(`${size} · fastpath · profiled load`);
    try {
      const profiled = (await writer.call(
        { op: 'load', sizeBytes, writes, window, profilePath: ctx.results.path(file) },
        { timeoutMs: loadTimeoutMs },
      )) as LoadSample & { profile: ProfileSummary };
      profile = { ...profiled.profile, file };
      ctx.note(`${size}: fastpath's profile: ${formatProfileShares(profiled.profile)} (${file})`);
    } catch (err) {
      ctx.note(`${size}: fastpath's profiled load failed: ${(err as Error).message.split('\n')[0]}`);
    }
    ctx.progress.advance(1, `${size} · fastpath · profiled load`);
  }
  await writer.call({ op: 'close' }, { timeoutMs: 30_000 }).catch(() => undefined);
  for (const client of CLIENTS) {
    ctx.results.writeCase(`${size}-${client}`, {
      size,
      sizeBytes,
      window,
      writesPerRound: writes,
      client,
      rounds: measured[client].rounds,
      error: measured[client].error ?? null,
      samples: samples[client],
      ...(client === 'fastpath' && profile ? { profile } : {}),
    });
  }
  return compareSize({ size, sizeBytes, window, writesPerRound: writes }, measured);
}

export const ratisScenario: Scenario<RatisSettings> = {
  name: 'ratis',
  title: "Ratis writes: fastpath's client against Ratis's own Java client",
  description:
    'Writes of 1 KiB, 64 KiB and 4 MiB to a real 3-peer Apache Ratis group (one JVM per peer, loopback gRPC, an ' +
    "append-only log state machine) through fastpath's `@fastpath/ratis-client` (Node, in its own process) and " +
    "through Ratis's own `RaftClient.async()` (Java, in its own JVM), with the same window of outstanding writes " +
    '(32, capped at 32 MiB outstanding as Ozone caps its writer: 8 for 4 MiB). Per size and client: writes/s, MiB/s, ' +
    'p50/p99 latency and client CPU per write, median and min-max of the rounds after a warm-up round; the clients ' +
    'take turns going first. Left out: watches, reads, leader changes during the load.',
  flags: RATIS_FLAGS,
  parseFlags: (args, { quick }) => parseRatisFlags(args, quick),
  async run(ctx) {
    const s = ctx.flags;
    ctx.results.writeConfig({ scenario: 'ratis', quick: ctx.quick, settings: s });
    const loadAtStart = os.loadavg();
    ctx.progress.begin('ratis', plannedUnits(s));
    const versions = { ratis: 'unknown' };
    const sizes: SizeComparison[] = [];
    for (const size of s.sizes) {
      if (ctx.signal.aborted) break;
      const compared = await runSize(ctx, size, versions);
      sizes.push(compared);
      ctx.results.recordComparison(size, compared);
    }
    ctx.progress.end();
    const loadAtEnd = os.loadavg();
    ctx.results.writeJson('load-average.json', { loadAtStart, loadAtEnd, cores: os.cpus().length });
    // Only sizes both clients measured: a log axis has no place for a missing bar.
    const charted = sizes.filter((c) => CLIENTS.every((client) => c.clients[client] !== undefined));
    if (charted.length > 0) {
      await ctx.results.writeChart(
        'writes-per-second',
        'Writes/s by size: fastpath against Ratis’s Java client',
        barChartSvg({
          title: 'Writes/s by size',
          categories: charted.map((c) => c.size),
          series: CLIENTS.map((client) => ({
            name: client === 'fastpath' ? 'fastpath (Node)' : 'Ratis RaftClient (Java)',
            points: charted.map((c) => {
              const w = c.clients[client]!.writesPerSec;
              return { value: w.median, min: w.min, max: w.max };
            }),
          })),
          yLabel: 'writes/s',
          yScale: 'log',
        }),
      );
    }
    const markdown = ratisReport(sizes, {
      quick: ctx.quick,
      loadAtStart,
      loadAtEnd,
      ratisVersion: versions.ratis,
    });
    return { markdown, summary: markdown };
  },
};
