// The machine's ceiling for the KMS benchmark: a trivial Fastify route doing one HMAC-SHA1 and
// answering a tiny JSON, measured with the same load generator in the same run. Verification
// throughput is judged against it, since here the server, ZooKeeper and the load generator
// share two cores.
import { createHmac, randomBytes } from 'node:crypto';
import Fastify from 'fastify';

const key = randomBytes(20);
const payload = randomBytes(64);
const app = Fastify({ logger: false });
// eslint-disable-next-line @typescript-eslint/require-await -- async like the KMS routes it is the baseline of, so both pay for the same promise
app.get('/baseline', async () => ({ mac: createHmac('sha1', key).update(payload).digest('base64url') }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.send?.({
  kind: 'baseline-listening',
  port: typeof address === 'object' && address ? address.port : 0,
});
const stop = (): void => void app.close().then(() => process.exit(0));
process.on('disconnect', stop);
process.on('SIGTERM', stop);
