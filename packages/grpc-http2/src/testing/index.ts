/**
 * `@fastpath/grpc-http2/testing`: an HTTP/2 server that sends exactly the frames a test asks for
 * (a GOAWAY mid-answer, resets, padding, CONTINUATIONs, frames too large, bad HPACK), and the
 * frame and setting codes to build them with.
 *
 * @module @fastpath/grpc-http2/testing
 */
export {
  startFrameServer,
  FrameServerPeer,
  type FrameServer,
  type ReceivedFrame,
  type ReceivedRequest,
} from './frame-server.js';
export { FLAG, FRAME, SETTING } from '../internal/frames.js';
