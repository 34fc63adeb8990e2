/** H2Stream: one HTTP/2 stream's state inside an {@link Http2Session}. */

/** What the owner of a stream (a gRPC call) is told about it. */
export interface StreamListener {
  /**
   * Response headers or trailers (client), trailers (server): the decoded field list, flat. At
   * a client the list is reused for the next block: read it during the call, do not keep it.
   */
  onHeaders(stream: H2Stream, fields: string[], endStream: boolean): void;
  /**
   * A DATA frame's payload (padding removed), or a piece of one: valid only during the call (it
   * may be the socket reader's reused buffer); a listener copies what it keeps.
   */
  onData(stream: H2Stream, data: Uint8Array, endStream: boolean): void;
  /**
   * The stream ended abnormally: the peer reset it (`byPeer`, with its error code), this side
   * found a stream error in what the peer sent (RST_STREAM already sent with `code`), or the
   * connection ended (`code` -1). Nothing more is delivered afterwards.
   */
  onAbort(stream: H2Stream, code: number, byPeer: boolean, message: string): void;
  /** The stream's queued data went out (flow control opened): writers waiting may go on. */
  onWritable?(stream: H2Stream): void;
}

/** A DATA run or trailers waiting for flow-control window, in order. */
export interface PendingSend {
  bytes: Uint8Array | undefined;
  start: number;
  end: number;
  endStream: boolean;
  /** Trailers to send (as HEADERS with END_STREAM) once the data before them is out. */
  trailers: string[] | undefined;
  /** Runs once the socket has written the last of these bytes (see `Http2Session.sendData`). */
  sent?: (() => void) | undefined;
}

const NOBODY: StreamListener = {
  onHeaders() {},
  onData() {},
  onAbort() {},
};

/**
 * One stream. `localEnded`: this side sent END_STREAM or RST_STREAM; `remoteEnded`: the peer
 * did, or reset it. The session forgets the stream once both are true.
 */
export class H2Stream {
  readonly id: number;
  listener: StreamListener = NOBODY;
  /** What the peer still lets us send on this stream (may go negative after a SETTINGS change). */
  sendWindow: number;
  /** What the peer may still send before we credit more. */
  recvWindow: number;
  /** Bytes received and consumed, not yet credited back with WINDOW_UPDATE. */
  recvUncredited = 0;
  localEnded = false;
  remoteEnded = false;
  /** Headers (the first HEADERS) sent by this side. */
  headersSent = false;
  /** Headers received from the peer (the first HEADERS). */
  headersReceived = false;
  /** Sends waiting for window, in order. */
  pending: PendingSend[] | undefined;

  constructor(id: number, sendWindow: number, recvWindow: number) {
    this.id = id;
    this.sendWindow = sendWindow;
    this.recvWindow = recvWindow;
  }

  /** True once both sides have ended it. */
  get closed(): boolean {
    return this.localEnded && this.remoteEnded;
  }
}
