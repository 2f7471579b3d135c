// `npm run probe:om-call-cost -- [--ops lookup,list] [--transports hadoop-rpc,grpc] [--rounds N]
// [--window-seconds S] [--list-keys N]`: the om-call-cost probe's table.
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  measureOmCallCost,
  OM_CALL_OPS,
  OM_CALL_TRANSPORTS,
  omCallCostTable,
  type OmCallOp,
  type OmCallTransport,
} from './om-call-cost.js';

const { values } = parseArgs({
  options: {
    ops: { type: 'string', default: OM_CALL_OPS.join(',') },
    transports: { type: 'string', default: OM_CALL_TRANSPORTS.join(',') },
    rounds: { type: 'string', default: '3' },
    'window-seconds': { type: 'string', default: '4' },
    'list-keys': { type: 'string', default: '1000' },
  },
});
function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
function listOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T[] {
  const items = value.split(',').map((v) => v.trim());
  for (const item of items)
    if (!(allowed as readonly string[]).includes(item))
      fail(`--${flag}: ${item} is not one of ${allowed.join(', ')}`);
  return items as T[];
}
const ops = listOf<OmCallOp>('ops', values.ops, OM_CALL_OPS);
const transports = listOf<OmCallTransport>('transports', values.transports, OM_CALL_TRANSPORTS);
const rounds = Number(values.rounds);
const windowSeconds = Number(values['window-seconds']);
const listKeys = Number(values['list-keys']);
if (!(Number.isInteger(rounds) && rounds > 0 && Number.isInteger(listKeys) && listKeys > 0))
  fail('--rounds and --list-keys take positive integers');
if (!(windowSeconds > 0)) fail('--window-seconds takes a positive number');

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
process.stderr.write(
  `om-call-cost: ${ops.join(', ')} over ${transports.join(', ')}, ${rounds} round(s) of ${windowSeconds} s windows, load ${load()}\n`,
);
// argv[1] rather than import.meta, which the CommonJS build of the tests cannot compile.
const here = path.dirname(path.resolve(process.argv[1] ?? 'src/probes/om-call-cost-main.ts'));
const results = await measureOmCallCost(
  {
    ops,
    transports,
    rounds,
    windowMs: windowSeconds * 1000,
    listKeys,
    clientModule: path.join(here, 'om-call-cost-client.ts'),
    clusterModule: path.join(here, '../scenarios/ozone-read/embedded-cluster-main.ts'),
  },
  (round, f) =>
    process.stderr.write(
      `round ${round}/${rounds}: ${f.operation} over ${f.transport}: ${f.cpuMicrosPerOp.toFixed(1)} µs and ${f.bytesPerOp.toFixed(0)} bytes per op, ${f.opsPerSec.toFixed(0)} ops/s\n`,
    ),
);
process.stdout.write(`${omCallCostTable(results)}\n`);
process.stderr.write(`load at the end ${load()}\n`);
