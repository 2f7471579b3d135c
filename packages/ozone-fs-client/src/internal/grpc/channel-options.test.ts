import { channelOptions, datanodeReconnectBackoffMs } from './channel-options.js';
import { DATANODE_KEEPALIVE } from './datanode-channel.js';

describe('the datanode channels reconnect backoff', () => {
  it('is the read retry interval, never below 100 ms', () => {
    expect(datanodeReconnectBackoffMs(1000)).toBe(1000); // Ozone's default interval
    expect(datanodeReconnectBackoffMs(5000)).toBe(5000);
    expect(datanodeReconnectBackoffMs(10)).toBe(100);
    expect(datanodeReconnectBackoffMs(0)).toBe(100);
  });

  it("sets gRPC's first and longest wait, the first never above gRPC's own 1 s", () => {
    expect(channelOptions(1 << 20, undefined, 100)).toMatchObject({
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 100,
    });
    expect(channelOptions(1 << 20, undefined, 5000)).toMatchObject({
      'grpc.initial_reconnect_backoff_ms': 1000,
      'grpc.max_reconnect_backoff_ms': 5000,
    });
  });

  it("leaves gRPC's backoff alone where no bound is given", () => {
    const options = channelOptions(1 << 20, undefined);
    expect(options).not.toHaveProperty('grpc.initial_reconnect_backoff_ms');
    expect(options).not.toHaveProperty('grpc.max_reconnect_backoff_ms');
  });
});

describe('the datanode channels keepalive', () => {
  it("pings no more often than every 5 minutes (gRPC-java's permitted interval on Ozone's datanode)", () => {
    expect(DATANODE_KEEPALIVE['grpc.keepalive_time_ms']).toBeGreaterThanOrEqual(5 * 60_000);
  });
});
