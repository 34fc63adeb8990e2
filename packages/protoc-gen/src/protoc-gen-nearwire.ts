#!/usr/bin/env node
/**
 * protoc-gen-nearwire: the protoc plugin (`protoc --nearwire_out=gen greeter.proto`, with this
 * bin on PATH or named by `--plugin=protoc-gen-nearwire=…`). Reads a CodeGeneratorRequest on
 * stdin, writes a CodeGeneratorResponse on stdout; errors go into the response for protoc to print.
 */
import { runPlugin } from "./code-generator.js";

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
process.stdout.write(runPlugin(Buffer.concat(chunks)));
