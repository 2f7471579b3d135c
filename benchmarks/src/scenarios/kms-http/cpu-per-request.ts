import type { WindowSummary } from '../../harness/mixed-load/goodput-window.js';
import type { WindowCpu } from './load-generator-main.js';

/** CPU per request over one measured window, of the server, ZooKeeper and the load generator. */
export interface CpuPerRequest {
  /** Completions counted in the window (successes and errors), all operations. */
  requests: number;
  creations: number;
  serverUsPerRequest: number | null;
  /** The same figure where every request is a verification (a mix without creations); else null. */
  serverUsPerVerification: number | null;
  /** ZooKeeper CPU per successful creation; null without creations. */
  zookeeperUsPerCreation: number | null;
  generatorUsPerRequest: number | null;
  /** Each process group's CPU as a percentage of one core over the window. */
  percentOfOneCore: { server: number | null; zookeeper: number | null; generator: number | null };
}

/**
 * Per-request CPU: each group's CPU rate over the interval between the generator's two readings,
 * divided by the rate of completions in the nominal window (the two differ by a timer's
 * lateness, a few ms in seconds).
 */
export function cpuPerRequest(window: WindowSummary, cpu: WindowCpu): CpuPerRequest {
  const { verify, create } = window.counted;
  const requests = verify.ok + verify.errors + create.ok + create.errors;
  const intervalS = cpu.intervalMs / 1000;
  const windowS = window.measureMs / 1000;
  const rate = (seconds: number | null | undefined): number | null =>
    seconds == null || !(intervalS > 0) ? null : seconds / intervalS;
  const perUnit = (seconds: number | null | undefined, count: number): number | null => {
    const r = rate(seconds);
    return r === null || count <= 0 || !(windowS > 0) ? null : (1e6 * r) / (count / windowS);
  };
  const percent = (seconds: number | null | undefined): number | null => {
    const r = rate(seconds);
    return r === null ? null : 100 * r;
  };
  const serverUsPerRequest = perUnit(cpu.seconds['server'], requests);
  return {
    requests,
    creations: create.ok,
    serverUsPerRequest,
    serverUsPerVerification: create.ok + create.errors === 0 ? serverUsPerRequest : null,
    zookeeperUsPerCreation: perUnit(cpu.seconds['zookeeper'], create.ok),
    generatorUsPerRequest: perUnit(cpu.generatorSeconds, requests),
    percentOfOneCore: {
      server: percent(cpu.seconds['server']),
      zookeeper: percent(cpu.seconds['zookeeper']),
      generator: percent(cpu.generatorSeconds),
    },
  };
}

/**
 * The server CPU of one creation, estimated from a mixed case: what its requests cost beyond the
 * verifications, priced at the same version's cost per verification at 100:0 (verification costs
 * the same with or without creations beside it, as far as the mix alone goes).
 */
export function estimatedCreationUs(
  serverUsPerRequest: number,
  createShare: number,
  usPerVerification: number,
): number | null {
  if (!(createShare > 0 && createShare <= 1)) return null;
  return (serverUsPerRequest - (1 - createShare) * usPerVerification) / createShare;
}
