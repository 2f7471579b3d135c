import { Metadata, status } from '@grpc/grpc-js';
import { rpcError } from './grpc-errors.js';

const serviceError = (code: status, details: string) =>
  Object.assign(new Error(`${code} ${status[code]}: ${details}`), {
    code,
    details,
    metadata: new Metadata(),
  });

describe('rpcError', () => {
  it("drops grpc-js's empty fields from a failed pick, keeps a real last error", () => {
    const refused = rpcError(
      '127.0.0.1:9859',
      serviceError(status.UNAVAILABLE, 'No connection established. Last error: null. Resolution note: '),
    );
    expect(refused.message).toBe('127.0.0.1:9859: unavailable: No connection established.');
    expect(refused).toMatchObject({ code: 'ERR_OZONE_UNAVAILABLE', retriable: true });
    const withCause = rpcError(
      '127.0.0.1:9859',
      serviceError(
        status.UNAVAILABLE,
        'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:9859. Resolution note: ',
      ),
    );
    expect(withCause.message).toBe(
      '127.0.0.1:9859: unavailable: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:9859.',
    );
  });

  it('names a deadline and any other status', () => {
    expect(rpcError('om:9862', serviceError(status.DEADLINE_EXCEEDED, 'Deadline exceeded')).code).toBe(
      'ERR_OZONE_DEADLINE_EXCEEDED',
    );
    const other = rpcError('om:9862', serviceError(status.INTERNAL, 'boom'));
    expect(other.code).toBe('ERR_OZONE_RPC_FAILED');
    expect(other.message).toContain('gRPC INTERNAL: boom');
  });
});
