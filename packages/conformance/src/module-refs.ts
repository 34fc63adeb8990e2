/**
 * Factory and codec modules named by URL, so the suite and its child processes load the same ones.
 */
import { Code, type Codec, jsonCodec, NearwireError, type Transport } from "@nearwire/core";

/** Options the suite passes to a factory module's `createTransport`. */
export interface TransportFactoryOptions {
  /**
   * Largest encoded message (codec output, without envelope) either side sends or accepts, in
   * bytes. Only the limits suite passes it; elsewhere the transport's default applies.
   */
  maxMessageBytes?: number;
  /**
   * The byte window to announce (PROTOCOL.md §5.4), on transports that have one (uds,
   * shm-ring). Only `creditWindowCheck` passes it.
   */
  creditWindowBytes?: number;
}

/**
 * What a transport's factory module exports. The suite imports it in the test process (client)
 * and in the server child process, so it must be importable on its own. A `.ts` module is
 * fine (the children then run with `--import tsx`); a `.js` one lets them start without it.
 */
export interface TransportFactoryModule {
  createTransport(
    address: string,
    options?: TransportFactoryOptions,
  ): Transport | Promise<Transport>;
}

/**
 * Names a codec by module, so that the server child process can load the same one:
 * `{ module: new URL("./codec.ts", import.meta.url).href, exportName: "codec" }`.
 */
export interface CodecRef {
  /** Module URL or specifier (resolved from the conformance package when bare). */
  module: string;
  /** Export holding the {@link Codec}; default `codec`. */
  exportName?: string;
}

/** Imports a factory module and checks its shape. */
export async function loadFactory(moduleUrl: string): Promise<TransportFactoryModule> {
  const mod = (await import(moduleUrl)) as Partial<TransportFactoryModule>;
  if (typeof mod.createTransport !== "function") {
    throw new NearwireError(
      Code.InvalidArgument,
      `factory module ${moduleUrl} does not export createTransport`,
    );
  }
  return mod as TransportFactoryModule;
}

/** Loads the codec a {@link CodecRef} names; core's `jsonCodec` when `ref` is undefined. */
export async function loadCodec(ref: CodecRef | undefined): Promise<Codec> {
  if (ref === undefined) return jsonCodec;
  const mod = (await import(ref.module)) as Record<string, unknown>;
  const codec = mod[ref.exportName ?? "codec"] as Codec | undefined;
  if (codec === undefined || typeof codec.forType !== "function") {
    throw new NearwireError(
      Code.InvalidArgument,
      `codec module ${ref.module} has no Codec export "${ref.exportName ?? "codec"}"`,
    );
  }
  return codec;
}
