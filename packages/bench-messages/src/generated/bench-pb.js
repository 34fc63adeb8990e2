/*eslint-disable block-scoped-var, id-length, no-control-regex, no-magic-numbers, no-mixed-operators, no-prototype-builtins, no-redeclare, no-shadow, no-var, sort-vars, default-case, jsdoc/require-param*/
import $protobuf from "protobufjs/minimal.js";

// Common aliases
const $Reader = $protobuf.Reader, $Writer = $protobuf.Writer, $util = $protobuf.util;
const $Object = $util.global.Object, $undefined = $util.global.undefined, $Error = $util.global.Error, $RangeError = $util.global.RangeError;

// Exported root namespace
const $root = $protobuf.roots["default"] || ($protobuf.roots["default"] = {});

export const nearwire = $root.nearwire = (() => {

    /**
     * Namespace nearwire.
     * @exports nearwire
     * @namespace
     */
    const nearwire = {};

    nearwire.bench = (function() {

        /**
         * Namespace bench.
         * @memberof nearwire
         * @namespace
         */
        const bench = {};

        bench.Tick = (function() {

            /**
             * Properties of a Tick.
             * @typedef {Object} nearwire.bench.Tick.$Properties
             * @property {number|null} [symbolId] Tick symbolId
             * @property {number|Long|null} [seq] Tick seq
             * @property {number|Long|null} [timestampNs] Tick timestampNs
             * @property {number|null} [bid] Tick bid
             * @property {number|null} [ask] Tick ask
             * @property {number|null} [bidSize] Tick bidSize
             * @property {number|null} [askSize] Tick askSize
             * @property {number|null} [flags] Tick flags
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a Tick.
             * @memberof nearwire.bench
             * @interface ITick
             * @augments nearwire.bench.Tick.$Properties
             * @deprecated Use nearwire.bench.Tick.$Properties instead.
             */

            /**
             * Shape of a Tick.
             * @typedef {nearwire.bench.Tick.$Properties} nearwire.bench.Tick.$Shape
             */

            /**
             * Constructs a new Tick.
             * @memberof nearwire.bench
             * @classdesc Represents a Tick.
             * @constructor
             * @param {nearwire.bench.Tick.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Tick = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Tick symbolId.
             * @member {number} symbolId
             * @memberof nearwire.bench.Tick
             * @instance
             */
            Tick.prototype.symbolId = 0;

            /**
             * Tick seq.
             * @member {number|Long} seq
             * @memberof nearwire.bench.Tick
             * @instance
             */
            Tick.prototype.seq = $util.Long ? $util.Long.fromBits(0,0,true) : 0;

            /**
             * Tick timestampNs.
             * @member {number|Long} timestampNs
             * @memberof nearwire.bench.Tick
             * @instance
             */
            Tick.prototype.timestampNs = $util.Long ? $util.Long.fromBits(0,0,true) : 0;

            /**
             * Tick bid.
             * @member {number} bid
             * @memberof nearwire.bench.Tick
             * @instance
             */
            Tick.prototype.bid = 0;

            /**
             * Tick ask.
             * @member {number} ask
             * @memberof nearwire.bench.Tick
             * @instance
             */
            Tick.prototype.ask = 0;

            /**
             * Tick bidSize.
             * @member {number} bidSize
             * @memberof nearwire.bench.Tick
             * @instance
             */
            Tick.prototype.bidSize = 0;

            /**
             * Tick askSize.
             * @member {number} askSize
             * @memberof nearwire.bench.Tick
             * @instance
             */
            Tick.prototype.askSize = 0;

            /**
             * Tick flags.
             * @member {number} flags
             * @memberof nearwire.bench.Tick
             * @instance
             */
            Tick.prototype.flags = 0;

            /**
             * Encodes the specified Tick message. Does not implicitly {@link nearwire.bench.Tick.verify|verify} messages.
             * @function encode
             * @memberof nearwire.bench.Tick
             * @static
             * @param {nearwire.bench.Tick.$Properties} message Tick message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Tick.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.symbolId != null && $Object.hasOwnProperty.call(message, "symbolId") && message.symbolId !== 0)
                    writer.uint32(/* id 1, wireType 0 =*/8).uint32(message.symbolId);
                if (message.seq != null && $Object.hasOwnProperty.call(message, "seq") && (typeof message.seq === "object" ? message.seq.low || message.seq.high : message.seq !== 0))
                    writer.uint32(/* id 2, wireType 0 =*/16).uint64(message.seq);
                if (message.timestampNs != null && $Object.hasOwnProperty.call(message, "timestampNs") && (typeof message.timestampNs === "object" ? message.timestampNs.low || message.timestampNs.high : message.timestampNs !== 0))
                    writer.uint32(/* id 3, wireType 0 =*/24).uint64(message.timestampNs);
                if (message.bid != null && $Object.hasOwnProperty.call(message, "bid") && !$Object.is(message.bid, 0))
                    writer.uint32(/* id 4, wireType 1 =*/33).double(message.bid);
                if (message.ask != null && $Object.hasOwnProperty.call(message, "ask") && !$Object.is(message.ask, 0))
                    writer.uint32(/* id 5, wireType 1 =*/41).double(message.ask);
                if (message.bidSize != null && $Object.hasOwnProperty.call(message, "bidSize") && message.bidSize !== 0)
                    writer.uint32(/* id 6, wireType 0 =*/48).uint32(message.bidSize);
                if (message.askSize != null && $Object.hasOwnProperty.call(message, "askSize") && message.askSize !== 0)
                    writer.uint32(/* id 7, wireType 0 =*/56).uint32(message.askSize);
                if (message.flags != null && $Object.hasOwnProperty.call(message, "flags") && message.flags !== 0)
                    writer.uint32(/* id 8, wireType 0 =*/64).uint32(message.flags);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a Tick message from the specified reader or buffer.
             * @function decode
             * @memberof nearwire.bench.Tick
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {nearwire.bench.Tick & nearwire.bench.Tick.$Shape} Tick
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Tick.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.nearwire.bench.Tick();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.uint32())
                                message.symbolId = value;
                            else
                                delete message.symbolId;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.uint64()) === "object" ? value.low || value.high : value !== 0)
                                message.seq = value;
                            else
                                delete message.seq;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.uint64()) === "object" ? value.low || value.high : value !== 0)
                                message.timestampNs = value;
                            else
                                delete message.timestampNs;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.bid = value;
                            else
                                delete message.bid;
                            continue;
                        }
                    case 5: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.ask = value;
                            else
                                delete message.ask;
                            continue;
                        }
                    case 6: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.uint32())
                                message.bidSize = value;
                            else
                                delete message.bidSize;
                            continue;
                        }
                    case 7: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.uint32())
                                message.askSize = value;
                            else
                                delete message.askSize;
                            continue;
                        }
                    case 8: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.uint32())
                                message.flags = value;
                            else
                                delete message.flags;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Tick;
        })();

        bench.Request = (function() {

            /**
             * Properties of a Request.
             * @typedef {Object} nearwire.bench.Request.$Properties
             * @property {string|null} [id] Request id
             * @property {string|null} [traceId] Request traceId
             * @property {string|null} [method] Request method
             * @property {string|null} [user] Request user
             * @property {Array.<string>|null} [tags] Request tags
             * @property {number|Long|null} [deadlineMs] Request deadlineMs
             * @property {number|null} [priority] Request priority
             * @property {Uint8Array|null} [body] Request body
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a Request.
             * @memberof nearwire.bench
             * @interface IRequest
             * @augments nearwire.bench.Request.$Properties
             * @deprecated Use nearwire.bench.Request.$Properties instead.
             */

            /**
             * Shape of a Request.
             * @typedef {nearwire.bench.Request.$Properties} nearwire.bench.Request.$Shape
             */

            /**
             * Constructs a new Request.
             * @memberof nearwire.bench
             * @classdesc Represents a Request.
             * @constructor
             * @param {nearwire.bench.Request.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Request = function (properties) {
                this.tags = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Request id.
             * @member {string} id
             * @memberof nearwire.bench.Request
             * @instance
             */
            Request.prototype.id = "";

            /**
             * Request traceId.
             * @member {string} traceId
             * @memberof nearwire.bench.Request
             * @instance
             */
            Request.prototype.traceId = "";

            /**
             * Request method.
             * @member {string} method
             * @memberof nearwire.bench.Request
             * @instance
             */
            Request.prototype.method = "";

            /**
             * Request user.
             * @member {string} user
             * @memberof nearwire.bench.Request
             * @instance
             */
            Request.prototype.user = "";

            /**
             * Request tags.
             * @member {Array.<string>} tags
             * @memberof nearwire.bench.Request
             * @instance
             */
            Request.prototype.tags = $util.emptyArray;

            /**
             * Request deadlineMs.
             * @member {number|Long} deadlineMs
             * @memberof nearwire.bench.Request
             * @instance
             */
            Request.prototype.deadlineMs = $util.Long ? $util.Long.fromBits(0,0,true) : 0;

            /**
             * Request priority.
             * @member {number} priority
             * @memberof nearwire.bench.Request
             * @instance
             */
            Request.prototype.priority = 0;

            /**
             * Request body.
             * @member {Uint8Array} body
             * @memberof nearwire.bench.Request
             * @instance
             */
            Request.prototype.body = $util.newBuffer([]);

            /**
             * Encodes the specified Request message. Does not implicitly {@link nearwire.bench.Request.verify|verify} messages.
             * @function encode
             * @memberof nearwire.bench.Request
             * @static
             * @param {nearwire.bench.Request.$Properties} message Request message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Request.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.id != null && $Object.hasOwnProperty.call(message, "id") && message.id !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.id);
                if (message.traceId != null && $Object.hasOwnProperty.call(message, "traceId") && message.traceId !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.traceId);
                if (message.method != null && $Object.hasOwnProperty.call(message, "method") && message.method !== "")
                    writer.uint32(/* id 3, wireType 2 =*/26).string(message.method);
                if (message.user != null && $Object.hasOwnProperty.call(message, "user") && message.user !== "")
                    writer.uint32(/* id 4, wireType 2 =*/34).string(message.user);
                if (message.tags != null && message.tags.length)
                    for (let i = 0; i < message.tags.length; ++i)
                        writer.uint32(/* id 5, wireType 2 =*/42).string(message.tags[i]);
                if (message.deadlineMs != null && $Object.hasOwnProperty.call(message, "deadlineMs") && (typeof message.deadlineMs === "object" ? message.deadlineMs.low || message.deadlineMs.high : message.deadlineMs !== 0))
                    writer.uint32(/* id 6, wireType 0 =*/48).uint64(message.deadlineMs);
                if (message.priority != null && $Object.hasOwnProperty.call(message, "priority") && message.priority !== 0)
                    writer.uint32(/* id 7, wireType 0 =*/56).uint32(message.priority);
                if (message.body != null && $Object.hasOwnProperty.call(message, "body") && message.body.length)
                    writer.uint32(/* id 8, wireType 2 =*/66).bytes(message.body);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a Request message from the specified reader or buffer.
             * @function decode
             * @memberof nearwire.bench.Request
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {nearwire.bench.Request & nearwire.bench.Request.$Shape} Request
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Request.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.nearwire.bench.Request();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.id = value;
                            else
                                delete message.id;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.traceId = value;
                            else
                                delete message.traceId;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.method = value;
                            else
                                delete message.method;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.user = value;
                            else
                                delete message.user;
                            continue;
                        }
                    case 5: {
                            if (wireType !== 2)
                                break;
                            if (!(message.tags && message.tags.length))
                                message.tags = [];
                            message.tags.push(reader.stringVerify());
                            continue;
                        }
                    case 6: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.uint64()) === "object" ? value.low || value.high : value !== 0)
                                message.deadlineMs = value;
                            else
                                delete message.deadlineMs;
                            continue;
                        }
                    case 7: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.uint32())
                                message.priority = value;
                            else
                                delete message.priority;
                            continue;
                        }
                    case 8: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.bytes()).length)
                                message.body = value;
                            else
                                delete message.body;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Request;
        })();

        bench.Metric = (function() {

            /**
             * Properties of a Metric.
             * @typedef {Object} nearwire.bench.Metric.$Properties
             * @property {number|Long|null} [timestampMs] Metric timestampMs
             * @property {string|null} [name] Metric name
             * @property {number|null} [value] Metric value
             * @property {Object.<string,string>|null} [tags] Metric tags
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a Metric.
             * @memberof nearwire.bench
             * @interface IMetric
             * @augments nearwire.bench.Metric.$Properties
             * @deprecated Use nearwire.bench.Metric.$Properties instead.
             */

            /**
             * Shape of a Metric.
             * @typedef {nearwire.bench.Metric.$Properties} nearwire.bench.Metric.$Shape
             */

            /**
             * Constructs a new Metric.
             * @memberof nearwire.bench
             * @classdesc Represents a Metric.
             * @constructor
             * @param {nearwire.bench.Metric.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Metric = function (properties) {
                this.tags = {};
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Metric timestampMs.
             * @member {number|Long} timestampMs
             * @memberof nearwire.bench.Metric
             * @instance
             */
            Metric.prototype.timestampMs = $util.Long ? $util.Long.fromBits(0,0,true) : 0;

            /**
             * Metric name.
             * @member {string} name
             * @memberof nearwire.bench.Metric
             * @instance
             */
            Metric.prototype.name = "";

            /**
             * Metric value.
             * @member {number} value
             * @memberof nearwire.bench.Metric
             * @instance
             */
            Metric.prototype.value = 0;

            /**
             * Metric tags.
             * @member {Object.<string,string>} tags
             * @memberof nearwire.bench.Metric
             * @instance
             */
            Metric.prototype.tags = $util.emptyObject;

            /**
             * Encodes the specified Metric message. Does not implicitly {@link nearwire.bench.Metric.verify|verify} messages.
             * @function encode
             * @memberof nearwire.bench.Metric
             * @static
             * @param {nearwire.bench.Metric.$Properties} message Metric message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Metric.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.timestampMs != null && $Object.hasOwnProperty.call(message, "timestampMs") && (typeof message.timestampMs === "object" ? message.timestampMs.low || message.timestampMs.high : message.timestampMs !== 0))
                    writer.uint32(/* id 1, wireType 0 =*/8).uint64(message.timestampMs);
                if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.name);
                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && !$Object.is(message.value, 0))
                    writer.uint32(/* id 3, wireType 1 =*/25).double(message.value);
                if (message.tags != null && $Object.hasOwnProperty.call(message, "tags"))
                    for (let keys = $Object.keys(message.tags), i = 0; i < keys.length; ++i)
                        writer.uint32(/* id 4, wireType 2 =*/34).fork().uint32(/* id 1, wireType 2 =*/10).string(keys[i]).uint32(/* id 2, wireType 2 =*/18).string(message.tags[keys[i]]).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a Metric message from the specified reader or buffer.
             * @function decode
             * @memberof nearwire.bench.Metric
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {nearwire.bench.Metric & nearwire.bench.Metric.$Shape} Metric
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Metric.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, key, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.nearwire.bench.Metric();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.uint64()) === "object" ? value.low || value.high : value !== 0)
                                message.timestampMs = value;
                            else
                                delete message.timestampMs;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.name = value;
                            else
                                delete message.name;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.value = value;
                            else
                                delete message.value;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 2)
                                break;
                            if (message.tags === $util.emptyObject)
                                message.tags = {};
                            let end2 = reader.size() + reader.pos;
                            if (end2 > reader.len)
                                throw $RangeError("index out of range");
                            reader.len = end2;
                            key = "";
                            value = "";
                            while (reader.pos < end2) {
                                let tag2 = reader.tag();
                                wireType = tag2 & 7;
                                switch (tag2 >>>= 3) {
                                case 1:
                                    if (wireType !== 2)
                                        break;
                                    key = reader.stringVerify();
                                    continue;
                                case 2:
                                    if (wireType !== 2)
                                        break;
                                    value = reader.stringVerify();
                                    continue;
                                }
                                reader.skipType(wireType, _depth, tag2);
                            }
                            if (reader.pos !== end2)
                                throw $RangeError("index out of range");
                            reader.len = end;
                            if (key === "__proto__")
                                $util.makeProp(message.tags, key);
                            message.tags[key] = value;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Metric;
        })();

        bench.Chunk = (function() {

            /**
             * Properties of a Chunk.
             * @typedef {Object} nearwire.bench.Chunk.$Properties
             * @property {number|null} [seq] Chunk seq
             * @property {boolean|null} [last] Chunk last
             * @property {Uint8Array|null} [data] Chunk data
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a Chunk.
             * @memberof nearwire.bench
             * @interface IChunk
             * @augments nearwire.bench.Chunk.$Properties
             * @deprecated Use nearwire.bench.Chunk.$Properties instead.
             */

            /**
             * Shape of a Chunk.
             * @typedef {nearwire.bench.Chunk.$Properties} nearwire.bench.Chunk.$Shape
             */

            /**
             * Constructs a new Chunk.
             * @memberof nearwire.bench
             * @classdesc Represents a Chunk.
             * @constructor
             * @param {nearwire.bench.Chunk.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Chunk = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Chunk seq.
             * @member {number} seq
             * @memberof nearwire.bench.Chunk
             * @instance
             */
            Chunk.prototype.seq = 0;

            /**
             * Chunk last.
             * @member {boolean} last
             * @memberof nearwire.bench.Chunk
             * @instance
             */
            Chunk.prototype.last = false;

            /**
             * Chunk data.
             * @member {Uint8Array} data
             * @memberof nearwire.bench.Chunk
             * @instance
             */
            Chunk.prototype.data = $util.newBuffer([]);

            /**
             * Encodes the specified Chunk message. Does not implicitly {@link nearwire.bench.Chunk.verify|verify} messages.
             * @function encode
             * @memberof nearwire.bench.Chunk
             * @static
             * @param {nearwire.bench.Chunk.$Properties} message Chunk message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Chunk.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.seq != null && $Object.hasOwnProperty.call(message, "seq") && message.seq !== 0)
                    writer.uint32(/* id 1, wireType 0 =*/8).uint32(message.seq);
                if (message.last != null && $Object.hasOwnProperty.call(message, "last") && message.last !== false)
                    writer.uint32(/* id 2, wireType 0 =*/16).bool(message.last);
                if (message.data != null && $Object.hasOwnProperty.call(message, "data") && message.data.length)
                    writer.uint32(/* id 3, wireType 2 =*/26).bytes(message.data);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a Chunk message from the specified reader or buffer.
             * @function decode
             * @memberof nearwire.bench.Chunk
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {nearwire.bench.Chunk & nearwire.bench.Chunk.$Shape} Chunk
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Chunk.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.nearwire.bench.Chunk();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.uint32())
                                message.seq = value;
                            else
                                delete message.seq;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.bool())
                                message.last = value;
                            else
                                delete message.last;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.bytes()).length)
                                message.data = value;
                            else
                                delete message.data;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Chunk;
        })();

        return bench;
    })();

    return nearwire;
})();

export {
  $root as default
};
