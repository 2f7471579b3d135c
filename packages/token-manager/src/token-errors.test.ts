import { TokenStoreError, TokenStoreUnavailableError } from './token-errors.js';

describe('token store errors', () => {
  it('take their code and retriable flag from their class, never from the throw site', () => {
    const refused = new TokenStoreError('refused', { zkCode: -101 });
    expect(refused).toMatchObject({ code: 'ERR_TOKEN_STORE', retriable: false, zkCode: -101 });
    const down = new TokenStoreUnavailableError('down', { outcomeUnknown: true });
    expect(down).toBeInstanceOf(TokenStoreError);
    expect(down).toMatchObject({
      code: 'ERR_TOKEN_STORE_UNAVAILABLE',
      retriable: true,
      outcomeUnknown: true,
    });
    expect(down.name).toBe('TokenStoreUnavailableError');
  });
});
