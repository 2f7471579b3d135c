// TOKEN (DIGEST-MD5) against Apache Hadoop's own RPC.Server with Hadoop's test secret manager,
// once per hadoop.rpc.protection: the client authenticates with a token the server issued, the
// server sees the token's user, and calls (a large one included) run through the
// security layer; a forged password is refused by the server.
import { Redacted } from '@fastpath/core';
import { Token } from '@fastpath/hadoop-common';
import { startHadoopRpcPeer } from '@fastpath/hadoop-fixture';
import {
  createHadoopRpcClient,
  createTokenSaslMechanism,
  type HadoopRpcProtection,
  RemoteException,
} from '@fastpath/hadoop-rpc';
import { TEST_RPC_PROTOCOL, testRpcMessages as m } from '@fastpath/hadoop-rpc/testing';

const empty = new Uint8Array(0);

describe.each<HadoopRpcProtection>(['authentication', 'integrity', 'privacy'])(
  'TOKEN against Apache Hadoop’s RPC.Server, hadoop.rpc.protection=%s',
  (protection) => {
    it('authenticates with the token the server issued; calls run through the negotiated layer; a forged password is refused', async () => {
      await using peer = await startHadoopRpcPeer({ token: { protection } });
      const issued = Token.fromUrlString(peer.tokenUrlString ?? '');
      const token = new Token({
        identifier: issued.identifier,
        password: issued.password,
        kind: issued.kind,
        service: peer.address,
      });
      await using client = createHadoopRpcClient({
        authProtocol: 'sasl',
        saslMechanisms: [createTokenSaslMechanism({ tokens: [token], protection: [protection] })],
      });
      const call = (method: string, request: Uint8Array = empty) =>
        client.call({ address: peer.address, ...TEST_RPC_PROTOCOL, method, request });
      expect(m.UserResponseProto.decode(await call('getAuthUser')).user).toBe('alice');
      const big = 'y'.repeat(300_000);
      const echoed = m.EchoResponseProto.decode(
        await call('echo', m.EchoRequestProto.encode({ message: big }).finish()),
      ).message;
      expect(echoed).toBe(big);

      const forged = new Token({
        identifier: issued.identifier,
        password: new Redacted(Buffer.from('forged-password')),
        kind: issued.kind,
        service: peer.address,
      });
      await using other = createHadoopRpcClient({
        authProtocol: 'sasl',
        saslMechanisms: [createTokenSaslMechanism({ tokens: [forged], protection: [protection] })],
      });
      const refused = await other
        .call({ address: peer.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RemoteException);
      expect((refused as RemoteException).errorDetail ?? '').toMatch(/UNAUTHORIZED/);
    }, 180_000);
  },
);
