import { BenchmarkInputError } from './benchmark-errors.js';
import { markdownTable } from './markdown-table.js';

describe('markdownTable', () => {
  it('pads cells and marks alignment in the rule line', () => {
    const table = markdownTable(
      [{ header: 'lock' }, { header: 'ops/s', align: 'right' }, { header: 'note', align: 'center' }],
      [
        ['core Mutex', '1.2 M', 'ok'],
        ['no lock', '10.7 M', ''],
      ],
    );
    expect(table).toBe(
      [
        '| lock       |  ops/s | note  |',
        '|------------|-------:|:-----:|',
        '| core Mutex |  1.2 M |  ok   |',
        '| no lock    | 10.7 M |       |',
      ].join('\n'),
    );
  });

  it('accepts plain header strings and pads short rows', () => {
    expect(markdownTable(['a', 'b'], [['1']])).toBe(
      ['| a   | b   |', '|-----|-----|', '| 1   |     |'].join('\n'),
    );
  });

  it('escapes pipes and flattens line breaks, so a cell cannot break the table', () => {
    const table = markdownTable(['x'], [['a|b\nc']]);
    expect(table.split('\n')[2]).toBe('| a\\|b c |');
  });

  it('counts characters, not UTF-16 units, when padding', () => {
    const table = markdownTable(['ratio'], [['1.5×'], ['µs']]);
    expect(table.split('\n').map((l) => [...l].length)).toEqual([9, 9, 9, 9]);
  });

  it('refuses rows wider than the header, and no columns', () => {
    expect(() => markdownTable(['a'], [['1', '2']])).toThrow(BenchmarkInputError);
    expect(() => markdownTable([], [])).toThrow(/no columns/);
  });
});
