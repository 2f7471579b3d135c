// A KMS server in its own process, for tests of several servers sharing one ZooKeeper. Run with
// `node --import tsx --conditions development kms-server-process.ts '<json options>'`; prints
// "listening <base url>" once it serves, and stops when its standard input closes.
import { createKmsServer } from '@fastpath/kms-server';
import type { KmsServerOptions } from '@fastpath/kms-server';

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as KmsServerOptions;
  const server = await createKmsServer({
    host: '127.0.0.1',
    port: 0,
    scrypt: { logN: 10, r: 8, p: 1 },
    ...options,
  });
  const url = await server.listen();
  process.stdout.write(`listening ${url}\n`);
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`close failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.stdin.on('end', stop).on('close', stop).resume();
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `kms server process failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
