import { connect } from 'node:net';

/** Whether a TCP connection to `host:port` is accepted now (a refusal or any other error: false). */
export function canConnect(address: string): Promise<boolean> {
  const at = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = connect({ host: address.slice(0, at), port: Number(address.slice(at + 1)) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
