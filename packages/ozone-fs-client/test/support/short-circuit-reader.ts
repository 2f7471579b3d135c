// Run in a child process by short-circuit-unavailable.integration.test.ts: two clients with
// short-circuit on read one key each; prints each stream's stats and the SHA-256 of the bytes.
import { createHash } from 'node:crypto';
import { createOzoneClient } from '@fastpath/ozone-fs-client';

const [omAddress, socketPath, volume, bucket, key] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const results = [];
for (let i = 0; i < 2; i++) {
  const client = createOzoneClient({
    omAddress,
    properties: { 'ozone.client.read.short-circuit': 'true', 'ozone.domain.socket.path': socketPath },
  });
  const stream = await client.openKey(volume, bucket, key);
  const bytes = await stream.readFully(0, stream.lengthBytes);
  results.push({ sha256: createHash('sha256').update(bytes).digest('hex'), stats: stream.stats });
  stream.close();
  client.close();
}
process.stdout.write(`${JSON.stringify(results)}\n`);
