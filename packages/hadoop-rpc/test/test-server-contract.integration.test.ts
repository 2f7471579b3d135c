// The contract suite against the Node test server of `/testing`.
import { startHadoopRpcTestServer, testRpcProtocol } from '@fastpath/hadoop-rpc/testing';
import { describeHadoopRpcContract } from './contract/rpc-contract-suite.js';

describeHadoopRpcContract('the /testing server', () =>
  startHadoopRpcTestServer({ protocols: [testRpcProtocol()] }),
);
