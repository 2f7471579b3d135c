import { longAnswer, tokenAnswer } from './token-routes.js';

describe('token operation answers', () => {
  it.each(['KAAIYWxpY2UAAAABjA', '', 'a"b\\c\n\u2028é'])(
    'writes the token answer for %j byte for byte as JSON.stringify does',
    (urlString) => {
      expect(tokenAnswer(urlString)).toBe(`${JSON.stringify({ Token: { urlString } })}\n`);
    },
  );

  it.each([0, 1_764_590_400_123, Number.MAX_SAFE_INTEGER, -1])(
    'writes the renewal answer for %d byte for byte as JSON.stringify does',
    (value) => {
      expect(longAnswer(value)).toBe(`${JSON.stringify({ long: value })}\n`);
    },
  );
});
