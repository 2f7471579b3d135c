import { DEFAULT_OM_HA_HEAP_MB, resolveRealOzoneClusterOptions } from './real-ozone-cluster-options.js';

describe('resolveRealOzoneClusterOptions: OM HA', () => {
  it('one OM by default; with omHa the service id and a larger default heap', () => {
    expect(resolveRealOzoneClusterOptions({})).toMatchObject({ omHa: 0, heapMb: 768 });
    expect(resolveRealOzoneClusterOptions({ omHa: 3 })).toMatchObject({
      omHa: 3,
      omServiceId: 'omservice',
      heapMb: DEFAULT_OM_HA_HEAP_MB,
    });
    expect(resolveRealOzoneClusterOptions({ omHa: 3, heapMb: 1024 }).heapMb).toBe(1024);
  });

  it('refuses what MiniOzoneHAClusterImpl cannot run, naming the option', () => {
    for (const omHa of [1, 6, -1, 2.5])
      expect(() => resolveRealOzoneClusterOptions({ omHa })).toThrow(/omHa/);
    expect(() => resolveRealOzoneClusterOptions({ omHa: 3, omServiceId: 'a b' })).toThrow(/omServiceId/);
  });
});

describe('resolveRealOzoneClusterOptions: Ratis DataStream', () => {
  it('off by default, as in Ozone; on sets the datanodes key, and its server binds loopback', () => {
    expect(resolveRealOzoneClusterOptions({}).configuration).toMatchObject({
      'hdds.container.ratis.datastream.enabled': 'false',
      'hdds.ratis.raft.netty.dataStream.host': '127.0.0.1',
    });
    const on = resolveRealOzoneClusterOptions({ dataStream: true });
    expect(on.dataStream).toBe(true);
    expect(on.configuration['hdds.container.ratis.datastream.enabled']).toBe('true');
  });

  it('is set by its option, not by the raw key, and only with a boolean', () => {
    expect(() =>
      resolveRealOzoneClusterOptions({
        configuration: { 'hdds.container.ratis.datastream.enabled': 'true' },
      }),
    ).toThrow(/option dataStream/);
    expect(() => resolveRealOzoneClusterOptions({ dataStream: 'yes' as never })).toThrow(/dataStream/);
  });
});
