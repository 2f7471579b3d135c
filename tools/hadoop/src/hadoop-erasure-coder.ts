import { checkInteger } from '@fastpath/core';
import { runJsonLinesDriver } from './hadoop-client.js';
import type { HadoopInstallation } from './prepare-hadoop.js';

const DRIVER_CLASS = 'dev.fastpath.hadoop.ErasureCoderDriver';

/** Which of hadoop-common's raw coders: the Java ones, or the native (libhadoop + ISA-L) ones. */
export type HadoopCoderKind = 'java' | 'native';

interface CoderSelection {
  readonly codec: 'rs' | 'xor';
  readonly data: number;
  readonly parity: number;
  /** Default `java`. */
  readonly coder?: HadoopCoderKind;
}

/**
 * One request to hadoop-common's raw erasure coders (`RSRawEncoder`/`RSRawDecoder`,
 * `XORRawEncoder`/`XORRawDecoder`, or their `Native…` forms). Cells are standard base64.
 */
export type HadoopErasureCoderRequest =
  | { readonly op: 'native' }
  | (CoderSelection & { readonly op: 'encode'; readonly cells: readonly string[] })
  | (CoderSelection & {
      readonly op: 'decode';
      /** d + p entries in unit order; null for a unit not given. */
      readonly inputs: readonly (string | null)[];
      readonly erased: readonly number[];
    })
  | (CoderSelection & {
      readonly op: 'bench';
      readonly cellBytes: number;
      /** 0: encode; 1 or 2: decode with that many lost data units (the first ones). */
      readonly erasures: number;
      readonly rounds: number;
      readonly roundMs: number;
    });

/** Hadoop's answer, or the exception its coder threw. */
export type HadoopErasureCoderAnswer =
  | {
      readonly ok: true;
      /** `native`: whether libhadoop with ISA-L loaded, and Hadoop's reason when not. */
      readonly loaded?: boolean;
      readonly reason?: string | null;
      /** The coder class that ran. */
      readonly coder?: string;
      readonly parity?: readonly string[];
      readonly outputs?: readonly string[];
      /** `bench`: data MiB of whole stripes per second, one sample per round. */
      readonly mibPerSecond?: readonly number[];
    }
  | { readonly ok: false; readonly exception: string; readonly message: string | null };

/** Options of {@link runHadoopErasureCoder}. */
export interface HadoopErasureCoderOptions {
  /** Upper bound for the JVM. Default 300000 ms. */
  timeoutMs?: number;
  /** JVM heap. Default 512 MiB (benchmarks hold 1 MiB cells of rs-6-3 and their base64). */
  heapMb?: number;
}

/**
 * Runs `requests` through hadoop-common's own raw erasure coders in one JVM (with both JIT
 * tiers, so `bench` figures are the coder's steady state); one answer per request.
 *
 * @throws HadoopClientError when the JVM fails without answering every request
 */
export function runHadoopErasureCoder(
  installation: HadoopInstallation,
  requests: readonly HadoopErasureCoderRequest[],
  options: HadoopErasureCoderOptions = {},
): Promise<HadoopErasureCoderAnswer[]> {
  const timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? 300_000, 1);
  const heapMb = checkInteger('heapMb', options.heapMb ?? 512, 64);
  return runJsonLinesDriver<HadoopErasureCoderAnswer>(
    installation,
    { className: DRIVER_CLASS, heapMb, fullJit: true },
    requests,
    timeoutMs,
  );
}
