import * as $protobuf from "protobufjs";
import Long = require("long");

/** Namespace nearwire. */
export namespace nearwire {

    /** Namespace bench. */
    namespace bench {

        /**
         * Properties of a Tick.
         * @deprecated Use nearwire.bench.Tick.$Properties instead.
         */
        interface ITick extends nearwire.bench.Tick.$Properties {
        }

        /** Represents a Tick. */
        class Tick {

            /**
             * Constructs a new Tick.
             * @param [properties] Properties to set
             */
            constructor(properties?: nearwire.bench.Tick.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Tick symbolId. */
            symbolId: number;

            /** Tick seq. */
            seq: (number|Long);

            /** Tick timestampNs. */
            timestampNs: (number|Long);

            /** Tick bid. */
            bid: number;

            /** Tick ask. */
            ask: number;

            /** Tick bidSize. */
            bidSize: number;

            /** Tick askSize. */
            askSize: number;

            /** Tick flags. */
            flags: number;

            /**
             * Encodes the specified Tick message. Does not implicitly {@link nearwire.bench.Tick.verify|verify} messages.
             * @param message Tick message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: nearwire.bench.Tick.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a Tick message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {nearwire.bench.Tick & nearwire.bench.Tick.$Shape} Tick
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): nearwire.bench.Tick & nearwire.bench.Tick.$Shape;
        }

        namespace Tick {

            /** Properties of a Tick. */
            interface $Properties {

                /** Tick symbolId */
                symbolId?: (number|null);

                /** Tick seq */
                seq?: (number|Long|null);

                /** Tick timestampNs */
                timestampNs?: (number|Long|null);

                /** Tick bid */
                bid?: (number|null);

                /** Tick ask */
                ask?: (number|null);

                /** Tick bidSize */
                bidSize?: (number|null);

                /** Tick askSize */
                askSize?: (number|null);

                /** Tick flags */
                flags?: (number|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a Tick. */
            type $Shape = nearwire.bench.Tick.$Properties;
        }

        /**
         * Properties of a Request.
         * @deprecated Use nearwire.bench.Request.$Properties instead.
         */
        interface IRequest extends nearwire.bench.Request.$Properties {
        }

        /** Represents a Request. */
        class Request {

            /**
             * Constructs a new Request.
             * @param [properties] Properties to set
             */
            constructor(properties?: nearwire.bench.Request.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Request id. */
            id: string;

            /** Request traceId. */
            traceId: string;

            /** Request method. */
            method: string;

            /** Request user. */
            user: string;

            /** Request tags. */
            tags: string[];

            /** Request deadlineMs. */
            deadlineMs: (number|Long);

            /** Request priority. */
            priority: number;

            /** Request body. */
            body: Uint8Array;

            /**
             * Encodes the specified Request message. Does not implicitly {@link nearwire.bench.Request.verify|verify} messages.
             * @param message Request message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: nearwire.bench.Request.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a Request message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {nearwire.bench.Request & nearwire.bench.Request.$Shape} Request
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): nearwire.bench.Request & nearwire.bench.Request.$Shape;
        }

        namespace Request {

            /** Properties of a Request. */
            interface $Properties {

                /** Request id */
                id?: (string|null);

                /** Request traceId */
                traceId?: (string|null);

                /** Request method */
                method?: (string|null);

                /** Request user */
                user?: (string|null);

                /** Request tags */
                tags?: (string[]|null);

                /** Request deadlineMs */
                deadlineMs?: (number|Long|null);

                /** Request priority */
                priority?: (number|null);

                /** Request body */
                body?: (Uint8Array|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a Request. */
            type $Shape = nearwire.bench.Request.$Properties;
        }

        /**
         * Properties of a Metric.
         * @deprecated Use nearwire.bench.Metric.$Properties instead.
         */
        interface IMetric extends nearwire.bench.Metric.$Properties {
        }

        /** Represents a Metric. */
        class Metric {

            /**
             * Constructs a new Metric.
             * @param [properties] Properties to set
             */
            constructor(properties?: nearwire.bench.Metric.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Metric timestampMs. */
            timestampMs: (number|Long);

            /** Metric name. */
            name: string;

            /** Metric value. */
            value: number;

            /** Metric tags. */
            tags: { [k: string]: string };

            /**
             * Encodes the specified Metric message. Does not implicitly {@link nearwire.bench.Metric.verify|verify} messages.
             * @param message Metric message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: nearwire.bench.Metric.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a Metric message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {nearwire.bench.Metric & nearwire.bench.Metric.$Shape} Metric
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): nearwire.bench.Metric & nearwire.bench.Metric.$Shape;
        }

        namespace Metric {

            /** Properties of a Metric. */
            interface $Properties {

                /** Metric timestampMs */
                timestampMs?: (number|Long|null);

                /** Metric name */
                name?: (string|null);

                /** Metric value */
                value?: (number|null);

                /** Metric tags */
                tags?: ({ [k: string]: string }|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a Metric. */
            type $Shape = nearwire.bench.Metric.$Properties;
        }

        /**
         * Properties of a Chunk.
         * @deprecated Use nearwire.bench.Chunk.$Properties instead.
         */
        interface IChunk extends nearwire.bench.Chunk.$Properties {
        }

        /** Represents a Chunk. */
        class Chunk {

            /**
             * Constructs a new Chunk.
             * @param [properties] Properties to set
             */
            constructor(properties?: nearwire.bench.Chunk.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Chunk seq. */
            seq: number;

            /** Chunk last. */
            last: boolean;

            /** Chunk data. */
            data: Uint8Array;

            /**
             * Encodes the specified Chunk message. Does not implicitly {@link nearwire.bench.Chunk.verify|verify} messages.
             * @param message Chunk message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: nearwire.bench.Chunk.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a Chunk message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {nearwire.bench.Chunk & nearwire.bench.Chunk.$Shape} Chunk
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): nearwire.bench.Chunk & nearwire.bench.Chunk.$Shape;
        }

        namespace Chunk {

            /** Properties of a Chunk. */
            interface $Properties {

                /** Chunk seq */
                seq?: (number|null);

                /** Chunk last */
                last?: (boolean|null);

                /** Chunk data */
                data?: (Uint8Array|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a Chunk. */
            type $Shape = nearwire.bench.Chunk.$Properties;
        }
    }
}
