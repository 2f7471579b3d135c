// The embedded OM on Hadoop RPC, as Ozone's OM serves OzoneManagerProtocol on its RPC port (9862):
// through @fastpath/hadoop-rpc's test server, one method, `submitRequest`. What differs from its
// gRPC service is what Ozone's OM takes from the RPC layer: the user from the connection (the
// OMRequest's userInfo is replaced with it, as OMClientRequest#getUserInfo does), the client id and
// call id for the retry cache of writes, and exceptions as Hadoop RPC RemoteExceptions with the
// Java class in the header (OMNotLeaderException from a follower, say).
import type { sendUnaryData, ServerErrorResponse, ServerUnaryCall } from '@grpc/grpc-js';
import {
  JavaExceptionReply,
  startHadoopRpcTestServer,
  type HadoopRpcCallContext,
  type HadoopRpcTestServer,
} from '@fastpath/hadoop-rpc/testing';
import {
  OM_PROTOCOL_NAME,
  OM_PROTOCOL_VERSION,
  OM_SUBMIT_REQUEST_METHOD,
} from '../internal/om/hadoop-rpc-om-transport.js';
import { om, type hadoop } from '../internal/proto/wire.js';
import type { MiniOm, MiniOmRpcCall } from './mini-om.js';
import type { MiniOmSecurity } from './mini-om-security.js';

type GrpcStyleHandler = MiniOm['handle'];

/** A gRPC-style OM handler answering one Hadoop RPC call. */
export function submitOverHadoopRpc(
  handle: GrpcStyleHandler,
  request: Uint8Array,
  context: HadoopRpcCallContext,
): Promise<Uint8Array> {
  let decoded: hadoop.ozone.OMRequest;
  try {
    decoded = om.OMRequest.decode(request);
  } catch (err) {
    return Promise.reject(
      new JavaExceptionReply('com.google.protobuf.InvalidProtocolBufferException', (err as Error).message),
    );
  }
  // Over Hadoop RPC the OM knows the caller from the connection only.
  decoded.userInfo = om.UserInfo.create({ userName: context.user ?? '' });
  const call: MiniOmRpcCall = {
    request: Buffer.from(om.OMRequest.encode(decoded).finish()),
    retryKey: `${context.clientId.toString('hex')}:${context.callId}`,
  };
  return new Promise<Uint8Array>((resolve, reject) => {
    const callback: sendUnaryData<Buffer> = (err, value) => {
      if (err) reject(javaException(err));
      else resolve(value ?? new Uint8Array(0));
    };
    handle(call as unknown as ServerUnaryCall<Buffer, Buffer>, callback);
  });
}

/** The Java exception a gRPC-style error describes (`<class>: <message>`), else an IOException. */
function javaException(err: Partial<ServerErrorResponse> | null | undefined): JavaExceptionReply {
  const details = String(err?.details ?? err?.message ?? '');
  const m = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+): ?([\s\S]*)$/.exec(details);
  return m
    ? new JavaExceptionReply(m[1] as string, m[2] as string)
    : new JavaExceptionReply('java.io.IOException', details);
}

const TOKEN_CALLS = new Set<number>([
  om.Type.GetDelegationToken,
  om.Type.RenewDelegationToken,
  om.Type.CancelDelegationToken,
]);

/**
 * Serves `handle` as OzoneManagerProtocol on 127.0.0.1:`port` (0: a free one); with `security`,
 * as a secure OM: TOKEN and KERBEROS only, and the delegation token calls answered by it.
 */
export async function serveOmOverHadoopRpc(
  handle: GrpcStyleHandler,
  port: number,
  security?: MiniOmSecurity,
): Promise<HadoopRpcTestServer> {
  let self = '';
  const server = await startHadoopRpcTestServer({
    port,
    // Ozone 2.2.0 forked Hadoop's IPC classes into `ipc_`: its OM names them so.
    ipcPackage: 'org.apache.hadoop.ipc_',
    ...(security === undefined ? {} : { authMethods: [], saslMechanisms: security.saslMechanisms() }),
    protocols: [
      {
        name: OM_PROTOCOL_NAME,
        version: OM_PROTOCOL_VERSION,
        methods: {
          [OM_SUBMIT_REQUEST_METHOD]: (request, context) => {
            if (security !== undefined) {
              const decoded = decodeOr(request);
              // The OM names itself in a token's service; clients put their own there.
              if (decoded !== undefined && TOKEN_CALLS.has(decoded.cmdType)) {
                return Promise.resolve(security.answer(decoded, context, self));
              }
            }
            return submitOverHadoopRpc(handle, request, context);
          },
        },
      },
    ],
  });
  self = server.address;
  return server;
}

function decodeOr(request: Uint8Array): hadoop.ozone.OMRequest | undefined {
  try {
    return om.OMRequest.decode(request);
  } catch {
    return undefined;
  }
}
