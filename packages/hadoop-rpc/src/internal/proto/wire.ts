// The generated protobuf codecs (protobufjs static code from proto/*.proto).
import protos from './protos.cjs';

export const rpc = protos.hadoop.common;
export type { hadoop } from './protos.cjs';
