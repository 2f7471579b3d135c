import { describe, expect, it } from '@jest/globals';
import { BenchmarkUsageError } from '../../harness/index.js';
import { clientPropertiesFlag, clientPropertiesText, clientPropertyFlag } from './client-property-flag.js';

describe('--client-property', () => {
  it('reads key=value pairs, comma-separated, trimmed; nothing when not given', () => {
    expect(clientPropertiesFlag('s', undefined)).toEqual({});
    expect(
      clientPropertiesFlag(
        's',
        'ozone.client.read.chunk.readahead=0, ozone.client.stream.buffer.max.size=128MB',
      ),
    ).toEqual({
      'ozone.client.read.chunk.readahead': '0',
      'ozone.client.stream.buffer.max.size': '128MB',
    });
  });

  it('refuses an item without a key and a value the client would refuse, naming the scenario', () => {
    expect(() => clientPropertiesFlag('s', 'readahead')).toThrow(BenchmarkUsageError);
    expect(() => clientPropertiesFlag('s', '=1')).toThrow(
      /^s: --client-property takes key=value pairs, got "=1"/,
    );
    expect(() => clientPropertiesFlag('s', 'ozone.client.read.chunk.readahead=-1')).toThrow(
      /^s: --client-property: .*ozone\.client\.read\.chunk\.readahead/,
    );
    expect(() => clientPropertiesFlag('s', 'ozone.client.stream.buffer.max.size=lots')).toThrow(
      /--client-property: .*ozone\.client\.stream\.buffer\.max\.size/,
    );
  });

  it("shows the scenario's example in its help line", () => {
    expect(clientPropertyFlag('a.b=1').description).toContain('e.g. a.b=1');
  });

  it('names the properties as the reports show them', () => {
    expect(clientPropertiesText({ 'a.b': '1', 'c.d': 'x' })).toBe('`a.b=1`, `c.d=x`');
  });
});
