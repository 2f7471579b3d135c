// The contract suite against Apache Hadoop's own IPC server (RPC.Server, ProtobufRpcEngine2,
// simple auth, hadoop-common 3.4's test service), started by tools/hadoop.
import { startHadoopRpcPeer } from '@fastpath/hadoop-fixture';
import { describeHadoopRpcContract } from './contract/rpc-contract-suite.js';

describeHadoopRpcContract('Apache Hadoop’s RPC.Server', () => startHadoopRpcPeer());
