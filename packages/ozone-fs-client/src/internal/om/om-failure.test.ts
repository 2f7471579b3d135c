import { status as GrpcStatus } from '@grpc/grpc-js';
import { HTTP2_ERROR } from '@fastpath/grpc-http2';
import {
  HadoopRpcCallTimeoutError,
  HadoopRpcConnectError,
  HadoopRpcConnectionLostError,
  HadoopRpcProtocolError,
  RemoteException,
} from '@fastpath/hadoop-rpc';
import type { OzoneRpcError } from '../../ozone-errors.js';
import { rpcError } from '../grpc/grpc-errors.js';
import { classifyOmFailure, parseSuggestedLeader } from './om-failure.js';

const internal = (details: string): OzoneRpcError => rpcError('om:1', { code: GrpcStatus.INTERNAL, details });
const remote = (
  className: string,
  errorMessage: string,
  status: 'ERROR' | 'FATAL' = 'ERROR',
): RemoteException =>
  new RemoteException({
    className,
    errorMessage,
    errorDetail: undefined,
    status,
    callId: 3,
    address: 'om:1',
  });

describe('classifyOmFailure', () => {
  it('reads the suggested leader from an OMNotLeaderException as a gRPC OM describes it', () => {
    const err = internal(
      'org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException: OM:omNode-2 is not the leader. Suggested leader is OM:omNode-1[localhost/127.0.0.1].',
    );
    expect(classifyOmFailure(err)).toEqual({
      kind: 'not-leader',
      suggestedLeader: { nodeId: 'omNode-1', address: 'localhost/127.0.0.1' },
      message: 'OM:omNode-2 is not the leader. Suggested leader is OM:omNode-1[localhost/127.0.0.1].',
      outcomeUnknown: true,
    });
  });

  it('a not-leader answer that names no leader', () => {
    const err = internal(
      'org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException: OM:omNode-2 is not the leader. Could not determine the leader node.',
    );
    expect(classifyOmFailure(err)).toMatchObject({ kind: 'not-leader', suggestedLeader: undefined });
  });

  it('leader not ready, Hadoop RPC remote exceptions, retriable refusals', () => {
    expect(
      classifyOmFailure(
        internal(
          'org.apache.hadoop.ozone.om.exceptions.OMLeaderNotReadyException: omNode-1 is Leader but not ready to process request yet.',
        ),
      ),
    ).toMatchObject({ kind: 'leader-not-ready' });
    // A Hadoop RPC RemoteException carries the class in its header and the message with a stack trace.
    expect(
      classifyOmFailure(
        remote(
          'org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException',
          'OM:om2 is not the leader. Suggested leader is OM:om3[host3/10.0.0.3].\n\tat x.y(Z.java:1)',
        ),
      ),
    ).toEqual({
      kind: 'not-leader',
      suggestedLeader: { nodeId: 'om3', address: 'host3/10.0.0.3' },
      message: 'OM:om2 is not the leader. Suggested leader is OM:om3[host3/10.0.0.3].',
      outcomeUnknown: true,
    });
    expect(
      classifyOmFailure(
        remote('org.apache.hadoop.ozone.om.exceptions.OMLeaderNotReadyException', 'om1 not ready'),
      ),
    ).toMatchObject({ kind: 'leader-not-ready' });
    expect(classifyOmFailure(remote('org.apache.hadoop.ipc_.RetriableException', 'busy'))).toEqual({
      kind: 'unreachable',
      outcomeUnknown: false,
    });
    expect(classifyOmFailure(remote('java.lang.NullPointerException', 'bug'))).toEqual({ kind: 'final' });
    // A FATAL answer refuses the connection as a whole (e.g. the authentication): final.
    expect(
      classifyOmFailure(remote('org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException', 'x', 'FATAL')),
    ).toEqual({ kind: 'final' });
    expect(classifyOmFailure(internal('org.apache.hadoop.ipc_.RetriableException: Server too busy'))).toEqual(
      {
        kind: 'unreachable',
        outcomeUnknown: false,
      },
    );
  });

  it('Hadoop RPC: refused carried nothing; dropped and timed out may have been applied; a protocol error is final', () => {
    expect(
      classifyOmFailure(new HadoopRpcConnectError('om:1', 'refused', 'ECONNREFUSED', undefined)),
    ).toEqual({
      kind: 'unreachable',
      outcomeUnknown: false,
    });
    expect(classifyOmFailure(new HadoopRpcConnectionLostError('om:1', 'reset'))).toEqual({
      kind: 'unreachable',
      outcomeUnknown: true,
    });
    expect(classifyOmFailure(new HadoopRpcCallTimeoutError('om:1', 'submitRequest', 7, 1000))).toEqual({
      kind: 'unreachable',
      outcomeUnknown: true,
    });
    expect(classifyOmFailure(new HadoopRpcProtocolError('om:1', 'garbage'))).toEqual({ kind: 'final' });
  });

  it('refused, dropped and timed-out calls are unreachable; whether the call may have been applied', () => {
    expect(
      classifyOmFailure(
        rpcError('om:1', {
          code: GrpcStatus.UNAVAILABLE,
          details: 'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1',
        }),
      ),
    ).toEqual({ kind: 'unreachable', outcomeUnknown: false });
    expect(
      classifyOmFailure(rpcError('om:1', { code: GrpcStatus.UNAVAILABLE, details: 'Connection dropped' })),
    ).toEqual({
      kind: 'unreachable',
      outcomeUnknown: true,
    });
    expect(
      classifyOmFailure(rpcError('om:1', { code: GrpcStatus.DEADLINE_EXCEEDED, details: 'Deadline' })),
    ).toEqual({
      kind: 'unreachable',
      outcomeUnknown: true,
    });
  });

  it('a stream the OM reset while going down (grpc-js: INTERNAL, RST_STREAM) is unreachable, outcome unknown', () => {
    expect(
      classifyOmFailure(
        rpcError('om:1', {
          code: GrpcStatus.INTERNAL,
          details: 'Received RST_STREAM with code 2 (Internal server error)',
        }),
      ),
    ).toEqual({ kind: 'unreachable', outcomeUnknown: true });
  });

  it("a stream the OM reset on fastpath's own sessions is unreachable: outcome unknown, or none ran when refused", () => {
    // As SocketDatanodeConnection and Http2DatanodeConnection report a RST_STREAM before any status.
    const reset = (http2ResetCode: number, code: number, details: string): OzoneRpcError =>
      rpcError('om:1', { code, details, http2ResetCode });
    expect(
      classifyOmFailure(
        reset(HTTP2_ERROR.INTERNAL_ERROR, GrpcStatus.INTERNAL, 'stream reset with HTTP/2 code 2'),
      ),
    ).toEqual({
      kind: 'unreachable',
      outcomeUnknown: true,
    });
    expect(
      classifyOmFailure(reset(HTTP2_ERROR.CANCEL, GrpcStatus.CANCELLED, 'stream cancelled by the server')),
    ).toEqual({
      kind: 'unreachable',
      outcomeUnknown: true,
    });
    expect(
      classifyOmFailure(
        reset(HTTP2_ERROR.REFUSED_STREAM, GrpcStatus.UNAVAILABLE, 'stream refused by the server'),
      ),
    ).toEqual({
      kind: 'unreachable',
      outcomeUnknown: false,
    });
    // The same status answered by the OM (trailers, no reset) stays what its exception says.
    expect(classifyOmFailure(internal('stream reset with HTTP/2 code 2'))).toEqual({ kind: 'final' });
  });

  it('an OM going down mid-call (its handler interrupted) is unreachable, outcome unknown', () => {
    for (const className of ['java.lang.InterruptedException', 'java.io.InterruptedIOException']) {
      expect(classifyOmFailure(remote(className, className))).toEqual({
        kind: 'unreachable',
        outcomeUnknown: true,
      });
      expect(classifyOmFailure(internal(`${className}: sleep interrupted`))).toEqual({
        kind: 'unreachable',
        outcomeUnknown: true,
      });
    }
    // A FATAL answer stays final whatever its class.
    expect(classifyOmFailure(remote('java.lang.InterruptedException', 'x', 'FATAL'))).toEqual({
      kind: 'final',
    });
  });

  it('any other OM exception or gRPC status is final', () => {
    expect(classifyOmFailure(internal('java.lang.NullPointerException: boom'))).toEqual({ kind: 'final' });
    expect(
      classifyOmFailure(rpcError('om:1', { code: GrpcStatus.RESOURCE_EXHAUSTED, details: 'big' })),
    ).toEqual({
      kind: 'final',
    });
    expect(classifyOmFailure(new Error('bug'))).toEqual({ kind: 'final' });
  });

  it('parses only a well-formed suggestion', () => {
    expect(parseSuggestedLeader('Suggested leader is OM:om1[]')).toEqual({ nodeId: 'om1', address: '' });
    expect(parseSuggestedLeader('Suggested leader is OM:om1')).toBeUndefined();
  });
});
