import { classifyHadoopRpcFailure } from './hadoop-rpc-failure.js';
import {
  HadoopRpcCallTimeoutError,
  HadoopRpcConnectError,
  HadoopRpcConnectionLostError,
  HadoopRpcConnectTimeoutError,
  HadoopRpcProtocolError,
  isRetriableRemoteClass,
  RemoteException,
} from './hadoop-rpc-errors.js';

const remote = (className: string, errorMessage: string, callId = 7, status: 'ERROR' | 'FATAL' = 'ERROR') =>
  new RemoteException({
    className,
    errorMessage,
    errorDetail: 'ERROR_APPLICATION',
    status,
    callId,
    address: 'om1:9862',
  });

describe('RemoteException', () => {
  it('keeps the first line of the message apart from the stack trace', () => {
    const e = remote(
      'org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException',
      'OM:om1 is not the leader. Suggested leader is OM:om2[host2:9862].\n\tat org.apache.hadoop.ozone.om.OzoneManager.x(OzoneManager.java:1)\n\tat y',
    );
    expect(e.firstLine).toBe('OM:om1 is not the leader. Suggested leader is OM:om2[host2:9862].');
    expect(e.stackTrace).toBe('\tat org.apache.hadoop.ozone.om.OzoneManager.x(OzoneManager.java:1)\n\tat y');
    expect(e.message).toBe(
      'om1:9862 answered ERROR org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException: OM:om1 is not the leader. Suggested leader is OM:om2[host2:9862].',
    );
    expect(e.retriable).toBe(false);
  });

  it.each([
    ['org.apache.hadoop.ipc.RetriableException', true],
    ['org.apache.hadoop.ipc_.RetriableException', true],
    ['org.apache.hadoop.ipc.StandbyException', true],
    ['org.apache.hadoop.security.AccessControlException', false],
    ['org.apache.hadoop.ipc_.RpcNoSuchMethodException', false],
  ])('%s retriable: %s (Hadoop retries it; Ozone spells the package ipc_)', (className, retriable) => {
    expect(isRetriableRemoteClass(className)).toBe(retriable);
    expect(remote(className, 'x').retriable).toBe(retriable);
  });
});

describe('classifyHadoopRpcFailure', () => {
  it('says what a failover layer needs', () => {
    expect(classifyHadoopRpcFailure(remote('a.B', 'first\n\tat x'))).toEqual({
      kind: 'remote',
      className: 'a.B',
      firstLine: 'first',
      fatal: false,
      mayHaveRun: true,
    });
    expect(classifyHadoopRpcFailure(remote('a.B', 'refused', -1, 'FATAL'))).toMatchObject({
      fatal: true,
      mayHaveRun: false,
    });
    expect(
      classifyHadoopRpcFailure(new HadoopRpcConnectError('h:1', 'refused', 'ECONNREFUSED', undefined)),
    ).toEqual({
      kind: 'refused',
      mayHaveRun: false,
    });
    expect(classifyHadoopRpcFailure(new HadoopRpcConnectionLostError('h:1', 'reset'))).toEqual({
      kind: 'dropped',
      mayHaveRun: true,
    });
    expect(classifyHadoopRpcFailure(new HadoopRpcConnectTimeoutError('h:1', 5))).toEqual({
      kind: 'timed-out',
      phase: 'connect',
      mayHaveRun: false,
    });
    expect(classifyHadoopRpcFailure(new HadoopRpcCallTimeoutError('h:1', 'm', 3, 5))).toEqual({
      kind: 'timed-out',
      phase: 'call',
      mayHaveRun: true,
    });
    expect(classifyHadoopRpcFailure(new HadoopRpcProtocolError('h:1', 'junk'))).toEqual({
      kind: 'other',
      mayHaveRun: true,
    });
  });
});
