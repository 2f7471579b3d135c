import { resolveOmTarget } from './om-service-config.js';

const HA = {
  'ozone.om.service.ids': 'omservice, other',
  'ozone.om.nodes.omservice': 'om1,om2 , om3',
  'ozone.om.address.omservice.om1': 'host1:9862',
  'ozone.om.address.omservice.om2': 'host2',
  'ozone.om.address.omservice.om3': '[::1]:19862',
  'ozone.om.grpc.port.omservice.om2': '18981',
  'ozone.om.nodes.other': 'a',
  'ozone.om.address.other.a': 'hosta',
} as Record<string, string>;
const lookup =
  (props: Record<string, string>) =>
  (key: string): string | undefined =>
    props[key];

describe('resolveOmTarget', () => {
  it("a service id: its nodes, each at its address's host and its gRPC port (per node, else ozone.om.grpc.port)", () => {
    expect(resolveOmTarget('omservice', lookup(HA), 8981)).toEqual({
      serviceId: 'omservice',
      nodes: [
        { nodeId: 'om1', host: 'host1', rpcPort: 9862, grpcPort: 8981 },
        { nodeId: 'om2', host: 'host2', rpcPort: 9862, grpcPort: 18981 },
        { nodeId: 'om3', host: '::1', rpcPort: 19862, grpcPort: 8981 },
      ],
      byAddress: false,
    });
  });

  it("a host that is not a service id is one OM at the port of the transport it is read for (gRPC's unless told)", () => {
    expect(resolveOmTarget('om.example.com:1234', lookup(HA), 8981)).toEqual({
      serviceId: undefined,
      nodes: [{ nodeId: 'om1', host: 'om.example.com', rpcPort: 9862, grpcPort: 1234 }],
      byAddress: true,
    });
    expect(resolveOmTarget('om.example.com', lookup({}), 8981).nodes[0]?.grpcPort).toBe(8981);
    expect(resolveOmTarget('om.example.com:1234', lookup({}), 8981, 'hadoop-rpc').nodes).toEqual([
      { nodeId: 'om1', host: 'om.example.com', rpcPort: 1234, grpcPort: 8981 },
    ]);
    expect(resolveOmTarget('om.example.com', lookup({}), 8981, 'hadoop-rpc').nodes[0]?.rpcPort).toBe(9862);
  });

  it("Ozone's error cases, each naming the key or option", () => {
    expect(() => resolveOmTarget('omservice:9862', lookup(HA), 8981)).toThrow(
      /logical \(HA\) OzoneManager service and does not use port information/,
    );
    // No authority: several service ids are ambiguous; one is taken; none falls back to ozone.om.address.
    expect(() => resolveOmTarget(undefined, lookup(HA), 8981)).toThrow(/lists 2 services/);
    expect(
      resolveOmTarget(undefined, lookup({ ...HA, 'ozone.om.service.ids': 'other' }), 8981).serviceId,
    ).toBe('other');
    expect(resolveOmTarget(undefined, lookup({ 'ozone.om.address': 'omhost:9862' }), 8981).nodes).toEqual([
      { nodeId: 'om1', host: 'omhost', rpcPort: 9862, grpcPort: 8981 },
    ]);
    expect(() => resolveOmTarget(undefined, lookup({}), 8981)).toThrow(/omAddress/);
    expect(() =>
      resolveOmTarget('omservice', lookup({ ...HA, 'ozone.om.nodes.omservice': ' ' }), 8981),
    ).toThrow(/ozone\.om\.nodes\.omservice/);
    const { ['ozone.om.address.omservice.om2']: _gone, ...missing } = HA;
    expect(() => resolveOmTarget('omservice', lookup(missing), 8981)).toThrow(
      /ozone\.om\.address\.omservice\.om2/,
    );
    expect(() =>
      resolveOmTarget('omservice', lookup({ ...HA, 'ozone.om.grpc.port.omservice.om1': 'x' }), 8981),
    ).toThrow(/ozone\.om\.grpc\.port\.omservice\.om1/);
  });

  it('leaves listener and decommissioned nodes out, as Ozone does', () => {
    const nodes = resolveOmTarget(
      'omservice',
      lookup({
        ...HA,
        'ozone.om.listener.nodes.omservice': 'om3',
        'ozone.om.decommissioned.nodes.omservice': 'om1',
      }),
      8981,
    ).nodes;
    expect(nodes.map((n) => n.nodeId)).toEqual(['om2']);
  });
});
