// `npm run probe:receive-paths -- [--mib N] [--rounds N]`: the receive-paths probe's table.
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { measureReceivePaths, receivePathsTable } from './receive-paths.js';

const { values } = parseArgs({
  options: { mib: { type: 'string', default: '2048' }, rounds: { type: 'string', default: '5' } },
});
const mib = Number(values.mib);
const rounds = Number(values.rounds);
if (!(Number.isInteger(mib) && mib > 0 && Number.isInteger(rounds) && rounds > 0)) {
  process.stderr.write('--mib and --rounds take positive integers\n');
  process.exit(2);
}
process.stderr.write(
  `receive-paths: ${mib} MiB per receiver, ${rounds} round(s), load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
// argv[1] rather than import.meta, which the CommonJS build of the tests cannot compile.
const peer = path.join(
  path.dirname(path.resolve(process.argv[1] ?? 'src/probes/receive-paths-main.ts')),
  'receive-paths-peer.ts',
);
const results = await measureReceivePaths({ mib, rounds, peer }, (round, figures) =>
  process.stderr.write(
    `round ${round}/${rounds}: ${figures.map((f) => `${f.path} ${f.cpuMicrosPerMib.toFixed(0)} µs/MiB`).join(', ')}\n`,
  ),
);
process.stdout.write(`${receivePathsTable(results)}\n`);
process.stderr.write(
  `load at the end ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
