// Run by bulk-engine.integration.test.ts in a process whose bulk addon cannot load: writes a key
// on the default engine and reads it back verified, tries the native engine by name, and prints
// what happened as JSON.
import { randomBytes } from 'node:crypto';
import { createOzoneClient } from '@fastpath/ozone-fs-client';

const [omAddress, volume, bucket] = process.argv.slice(2) as [string, string, string];
const client = createOzoneClient({ omAddress, config: { checksumType: 'CRC32' } });
try {
  const data = randomBytes(5 * 1024 * 1024 + 3);
  const key = await client.createKey(volume, bucket, 'without-addon');
  for (let at = 0; at < data.length; at += 1024 * 1024) await key.write(data.subarray(at, at + 1024 * 1024));
  await key.close();
  const stream = await client.openKey(volume, bucket, 'without-addon', { verifyChecksum: true });
  const readBack = (await stream.readFully(0, data.length)).equals(data);
  let nativeRefused = '';
  try {
    createOzoneClient({ omAddress, config: { bulkEngine: 'native' } }).close();
  } catch (err) {
    nativeRefused = `${(err as Error).name}: ${(err as Error).message}`;
  }
  process.stdout.write(
    JSON.stringify({
      engine: client.bulkEngine,
      readBack,
      verified: stream.stats.bytesVerified,
      nativeRefused,
    }),
  );
} finally {
  client.close();
}
