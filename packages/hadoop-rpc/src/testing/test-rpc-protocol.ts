// Hadoop's own IPC test service (`TestProtobufRpcProto` of hadoop-common's test protos) served in
// Node, method for method as the Java driver of tools/hadoop serves it on Hadoop's RPC.Server, so
// that one contract suite runs against both.
import { rpc } from '../internal/proto/wire.js';
import {
  type HadoopRpcCallContext,
  type HadoopRpcTestProtocol,
  JavaExceptionReply,
} from './hadoop-rpc-test-server.js';

/** The protocol name and version the test service is registered under (on both servers). */
export const TEST_RPC_PROTOCOL = Object.freeze({
  /** The protocol name (`@ProtocolInfo.protocolName` of Hadoop's `TestRpcService`), a call's `protocol`. */
  protocol: 'org.apache.hadoop.ipc.TestRpcBase$TestRpcService',
  /** The protocol version, a call's `protocolVersion`. */
  protocolVersion: 1,
});

/** `echo2` with this one string answers the call's context instead of echoing. */
export const CALL_CONTEXT_REQUEST = 'call-context';

/** The codecs of the test service's messages (package `hadoop.common`). */
export const testRpcMessages = Object.freeze({
  /** The request of `ping`, `error`, `error2` and `getAuthUser`: no fields. */
  EmptyRequestProto: rpc.EmptyRequestProto,
  /** The response of `ping` and `sleep`: no fields. */
  EmptyResponseProto: rpc.EmptyResponseProto,
  /** The request of `echo`: one string, `message`. */
  EchoRequestProto: rpc.EchoRequestProto,
  /** The response of `echo`: the request's `message`. */
  EchoResponseProto: rpc.EchoResponseProto,
  /** The request of `echo2`: a list of strings, `message`. */
  EchoRequestProto2: rpc.EchoRequestProto2,
  /** The response of `echo2`: the request's `message`, or the context ({@link describeCallContext}). */
  EchoResponseProto2: rpc.EchoResponseProto2,
  /** The request of `sleep`: `milliSeconds`, how long the server waits before it answers. */
  SleepRequestProto: rpc.SleepRequestProto,
  /** The response of `getAuthUser`: `user`, the connection's effective user (`''` when none). */
  UserResponseProto: rpc.UserResponseProto,
});

const empty = (): Uint8Array => rpc.EmptyResponseProto.encode({}).finish();

/** The caller's context as `echo2(["call-context"])` answers it: user, client id (hex), call id, retry count. */
export function describeCallContext(context: HadoopRpcCallContext): string[] {
  return [
    context.user ?? '',
    context.clientId.toString('hex'),
    String(context.callId),
    String(context.retryCount),
  ];
}

/**
 * The test service: `ping`, `echo`, `echo2` (`["call-context"]` answers the caller's context),
 * `error` (`RpcServerException`, ERROR_RPC_SERVER, as Hadoop's test server), `error2`
 * (`RetriableException`), `sleep` (answers after `milliSeconds`), `getAuthUser`.
 */
export function testRpcProtocol(): HadoopRpcTestProtocol {
  return {
    name: TEST_RPC_PROTOCOL.protocol,
    version: TEST_RPC_PROTOCOL.protocolVersion,
    methods: {
      ping: () => Promise.resolve(empty()),
      echo: (request) => {
        const { message } = rpc.EchoRequestProto.decode(request);
        return Promise.resolve(rpc.EchoResponseProto.encode({ message }).finish());
      },
      echo2: (request, context) => {
        const { message } = rpc.EchoRequestProto2.decode(request);
        const answer =
          message.length === 1 && message[0] === CALL_CONTEXT_REQUEST
            ? describeCallContext(context)
            : message;
        return Promise.resolve(rpc.EchoResponseProto2.encode({ message: answer }).finish());
      },
      error: () =>
        Promise.reject(
          new JavaExceptionReply('org.apache.hadoop.ipc.RpcServerException', 'error', 'ERROR_RPC_SERVER'),
        ),
      error2: () =>
        Promise.reject(
          new JavaExceptionReply('org.apache.hadoop.ipc.RetriableException', 'server too busy, try again'),
        ),
      sleep: async (request) => {
        const { milliSeconds } = rpc.SleepRequestProto.decode(request);
        await new Promise((resolve) => setTimeout(resolve, milliSeconds).unref());
        return empty();
      },
      getAuthUser: (_request, context) =>
        Promise.resolve(rpc.UserResponseProto.encode({ user: context.user ?? '' }).finish()),
    },
  };
}
