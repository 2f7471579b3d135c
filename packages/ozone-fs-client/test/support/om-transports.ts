import type { OmTransportName } from '@fastpath/ozone-fs-client';

/** Both OM transports (`ozone.om.transport.class`): the contract suites run over each. */
export const OM_TRANSPORTS: readonly OmTransportName[] = ['hadoop-rpc', 'grpc'];
