// fastpath-ozone-mini: runs the embedded mini Ozone cluster in its own process until SIGINT or
// SIGTERM, printing the OM addresses (gRPC and Hadoop RPC; with --tls, the CA file) as one JSON
// line when ready.
import { parseArgs } from 'node:util';
import { startMiniOzoneCluster } from './mini-ozone-cluster.js';

const USAGE = `usage: fastpath-ozone-mini start [--datanodes N] [--tls] [--dir DIR] [--om-port PORT]
                                [--domain-socket-path PATH]

  --datanodes N   number of datanodes (default 3)
  --tls           serve TLS with a generated CA; its file is printed as "caFile"
  --dir DIR       data directory, kept and reused (default: a fresh temporary one, removed on exit)
  --om-port PORT  OM gRPC port (default: a free one)
  --domain-socket-path PATH
                  serve short-circuit reads on this Unix socket (ozone.domain.socket.path;
                  _PORT becomes each datanode's port; needs the native addon)`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        datanodes: { type: 'string', default: '3' },
        tls: { type: 'boolean', default: false },
        dir: { type: 'string' },
        'om-port': { type: 'string', default: '0' },
        'domain-socket-path': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`fastpath-ozone-mini: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals[0] !== 'start' || positionals.length !== 1) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const datanodes = Number(values.datanodes);
  const omPort = Number(values['om-port']);
  if (
    !Number.isInteger(datanodes) ||
    datanodes < 1 ||
    !Number.isInteger(omPort) ||
    omPort < 0 ||
    omPort > 65535
  ) {
    process.stderr.write(
      `fastpath-ozone-mini: --datanodes must be a positive integer and --om-port a port number\n`,
    );
    return 2;
  }
  let cluster;
  try {
    cluster = await startMiniOzoneCluster({
      datanodes,
      tls: values.tls,
      omPort,
      ...(values.dir ? { dir: values.dir } : {}),
      ...(values['domain-socket-path'] ? { domainSocketPath: values['domain-socket-path'] } : {}),
    });
  } catch (err) {
    process.stderr.write(`fastpath-ozone-mini: cannot start: ${(err as Error).message}\n`);
    return 1;
  }
  process.stdout.write(
    `${JSON.stringify({ omAddress: cluster.omAddress, omRpcAddress: cluster.omRpcAddress, datanodes: cluster.datanodes.map((d) => ({ uuid: d.uuid, address: d.address, ...(d.domainSocketPath ? { domainSocketPath: d.domainSocketPath } : {}) })), dir: cluster.dir, ...(cluster.caFile ? { caFile: cluster.caFile } : {}) })}\n`,
  );
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve());
  });
  await cluster.close();
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
