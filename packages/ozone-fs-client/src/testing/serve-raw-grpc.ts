// A grpc-js server of the mini cluster on 127.0.0.1, by default with message limits a 4 MiB chunk
// (and its envelope) fits in many times over.
import {
  Server,
  type ServerCredentials,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';

/** Starts `service` on 127.0.0.1:`port` (0: a free one); resolves with the server and its port. */
export async function serveRawGrpc(
  service: ServiceDefinition,
  handlers: UntypedServiceImplementation,
  port: number,
  credentials: ServerCredentials,
  maxMessageBytes = 64 * 1024 * 1024,
): Promise<{ server: Server; port: number }> {
  const server = new Server({
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': maxMessageBytes,
  });
  server.addService(service, handlers);
  try {
    const bound = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${port}`, credentials, (err, p) => (err ? reject(err) : resolve(p))),
    );
    return { server, port: bound };
  } catch (err) {
    server.forceShutdown();
    throw err;
  }
}
