/** DescriptorIndex: encoded FileDescriptorProtos looked up by file name, symbol and extension. */
import { LENGTH_DELIMITED as LEN, ProtoReader, tagOf, VARINT } from "./proto-wire.js";

// FileDescriptorProto
const FILE_NAME = tagOf(1, LEN);
const FILE_PACKAGE = tagOf(2, LEN);
const FILE_DEPENDENCY = tagOf(3, LEN);
const FILE_MESSAGE_TYPE = tagOf(4, LEN);
const FILE_ENUM_TYPE = tagOf(5, LEN);
const FILE_SERVICE = tagOf(6, LEN);
const FILE_EXTENSION = tagOf(7, LEN);
// DescriptorProto
const MESSAGE_NAME = tagOf(1, LEN);
const MESSAGE_FIELD = tagOf(2, LEN);
const MESSAGE_NESTED_TYPE = tagOf(3, LEN);
const MESSAGE_ENUM_TYPE = tagOf(4, LEN);
const MESSAGE_EXTENSION = tagOf(6, LEN);
// EnumDescriptorProto, ServiceDescriptorProto, MethodDescriptorProto, OneofDescriptorProto
const NAME = tagOf(1, LEN);
const SERVICE_METHOD = tagOf(2, LEN);
// FieldDescriptorProto
const FIELD_NAME = tagOf(1, LEN);
const FIELD_EXTENDEE = tagOf(2, LEN);
const FIELD_NUMBER = tagOf(3, VARINT);

interface IndexedFile {
  readonly bytes: Uint8Array;
  readonly dependencies: readonly string[];
}

/** What one FileDescriptorProto defines, as read by {@link readFile}. */
interface FileContents {
  name: string;
  dependencies: string[];
  /** Fully-qualified names (no leading dot): messages, fields, enums, services, methods, extensions. */
  symbols: string[];
  /** Fully-qualified names of the messages. */
  messages: string[];
  extensions: { extendee: string; number: number }[];
}

/**
 * Encoded `google.protobuf.FileDescriptorProto`s, indexed by file name and by every
 * fully-qualified symbol they define: messages and enums (nested ones as `pkg.Outer.Inner`),
 * message fields, services, methods (`pkg.Service.Method`) and extensions (by name, and by
 * extendee + number). Only the names, dependencies and extension numbers are decoded; the
 * bytes are served as given.
 *
 * When two files have the same name, or two files define the same symbol or extension, the
 * first one added wins. A file that does not decode throws INVALID_ARGUMENT `decode-failed`.
 */
export class DescriptorIndex {
  private readonly files = new Map<string, IndexedFile>();
  private readonly symbols = new Map<string, string>();
  private readonly messages = new Set<string>();
  /** extendee (fully qualified, no leading dot) → extension number → file name. */
  private readonly extensions = new Map<string, Map<number, string>>();

  /** Indexes `files` (each an encoded FileDescriptorProto), in order. */
  constructor(files: Iterable<Uint8Array>) {
    for (const bytes of files) this.add(bytes);
  }

  /** The names of the indexed files, in the order added. */
  fileNames(): string[] {
    return [...this.files.keys()];
  }

  /** The file named `name` and its transitive dependencies, or undefined when unknown. */
  fileByName(name: string): Uint8Array[] | undefined {
    return this.files.has(name) ? this.withDependencies(name) : undefined;
  }

  /**
   * The file defining `symbol` (fully qualified, no leading dot) and its transitive
   * dependencies, or undefined when no indexed file defines it.
   */
  fileContainingSymbol(symbol: string): Uint8Array[] | undefined {
    const name = this.symbols.get(symbol);
    return name === undefined ? undefined : this.withDependencies(name);
  }

  /**
   * The file defining extension `number` of message `extendee` and its transitive
   * dependencies, or undefined when none does.
   */
  fileContainingExtension(extendee: string, number: number): Uint8Array[] | undefined {
    const name = this.extensions.get(extendee)?.get(number);
    return name === undefined ? undefined : this.withDependencies(name);
  }

  /**
   * The extension numbers of message `typeName`, ascending; an empty array for a known message
   * without extensions, undefined for a name that is neither an indexed message nor extended.
   */
  extensionNumbers(typeName: string): number[] | undefined {
    const numbers = this.extensions.get(typeName);
    if (numbers === undefined) return this.messages.has(typeName) ? [] : undefined;
    return [...numbers.keys()].sort((a, b) => a - b);
  }

  private add(bytes: Uint8Array): void {
    const contents = readFile(bytes);
    if (this.files.has(contents.name)) return;
    this.files.set(contents.name, { bytes, dependencies: contents.dependencies });
    for (const symbol of contents.symbols)
      if (!this.symbols.has(symbol)) this.symbols.set(symbol, contents.name);
    for (const message of contents.messages) this.messages.add(message);
    for (const { extendee, number } of contents.extensions) {
      let numbers = this.extensions.get(extendee);
      if (numbers === undefined) {
        numbers = new Map();
        this.extensions.set(extendee, numbers);
      }
      if (!numbers.has(number)) numbers.set(number, contents.name);
    }
  }

  /**
   * `name` first, then its dependencies breadth-first (the order grpc-go sends them), each
   * once; dependencies that are not indexed are left out.
   */
  private withDependencies(name: string): Uint8Array[] {
    const out: Uint8Array[] = [];
    const seen = new Set<string>([name]);
    const queue = [name];
    for (let i = 0; i < queue.length; i++) {
      const file = this.files.get(queue[i] as string);
      if (file === undefined) continue;
      out.push(file.bytes);
      for (const dependency of file.dependencies) {
        if (seen.has(dependency)) continue;
        seen.add(dependency);
        queue.push(dependency);
      }
    }
    return out;
  }
}

const FILE_TYPE = "google.protobuf.FileDescriptorProto";

/** Reads the name, dependencies and every definition of one encoded FileDescriptorProto. */
function readFile(bytes: Uint8Array): FileContents {
  const contents: FileContents = {
    name: "",
    dependencies: [],
    symbols: [],
    messages: [],
    extensions: [],
  };
  let pkg = "";
  const messages: ProtoReader[] = [];
  const enums: ProtoReader[] = [];
  const services: ProtoReader[] = [];
  const extensions: ProtoReader[] = [];
  const reader = new ProtoReader(bytes, FILE_TYPE);
  while (!reader.done) {
    const tag = reader.tag();
    switch (tag) {
      case FILE_NAME:
        contents.name = reader.string();
        break;
      case FILE_PACKAGE:
        pkg = reader.string();
        break;
      case FILE_DEPENDENCY:
        contents.dependencies.push(reader.string());
        break;
      case FILE_MESSAGE_TYPE:
        messages.push(reader.message("google.protobuf.DescriptorProto"));
        break;
      case FILE_ENUM_TYPE:
        enums.push(reader.message("google.protobuf.EnumDescriptorProto"));
        break;
      case FILE_SERVICE:
        services.push(reader.message("google.protobuf.ServiceDescriptorProto"));
        break;
      case FILE_EXTENSION:
        extensions.push(reader.message("google.protobuf.FieldDescriptorProto"));
        break;
      default:
        reader.skip(tag & 7);
    }
  }
  // The package may come after the definitions: read them once it is known.
  for (const message of messages) readMessage(message, pkg, contents);
  for (const e of enums) contents.symbols.push(qualify(pkg, readName(e)));
  for (const service of services) readService(service, pkg, contents);
  for (const extension of extensions) readExtension(extension, pkg, contents);
  return contents;
}

function qualify(scope: string, name: string): string {
  return scope === "" ? name : `${scope}.${name}`;
}

/** The `name = 1` of an enum, method or oneof descriptor (other fields skipped). */
function readName(reader: ProtoReader): string {
  let name = "";
  while (!reader.done) {
    const tag = reader.tag();
    if (tag === NAME) name = reader.string();
    else reader.skip(tag & 7);
  }
  return name;
}

function readMessage(reader: ProtoReader, scope: string, contents: FileContents): void {
  let name = "";
  const fields: ProtoReader[] = [];
  const nested: ProtoReader[] = [];
  const enums: ProtoReader[] = [];
  const extensions: ProtoReader[] = [];
  while (!reader.done) {
    const tag = reader.tag();
    switch (tag) {
      case MESSAGE_NAME:
        name = reader.string();
        break;
      case MESSAGE_FIELD:
        fields.push(reader.message("google.protobuf.FieldDescriptorProto"));
        break;
      case MESSAGE_NESTED_TYPE:
        nested.push(reader.message("google.protobuf.DescriptorProto"));
        break;
      case MESSAGE_ENUM_TYPE:
        enums.push(reader.message("google.protobuf.EnumDescriptorProto"));
        break;
      case MESSAGE_EXTENSION:
        extensions.push(reader.message("google.protobuf.FieldDescriptorProto"));
        break;
      default:
        reader.skip(tag & 7);
    }
  }
  const fullName = qualify(scope, name);
  contents.symbols.push(fullName);
  contents.messages.push(fullName);
  for (const field of fields) contents.symbols.push(qualify(fullName, readField(field).name));
  for (const message of nested) readMessage(message, fullName, contents);
  for (const e of enums) contents.symbols.push(qualify(fullName, readName(e)));
  for (const extension of extensions) readExtension(extension, fullName, contents);
}

function readService(reader: ProtoReader, scope: string, contents: FileContents): void {
  let name = "";
  const methods: ProtoReader[] = [];
  while (!reader.done) {
    const tag = reader.tag();
    if (tag === NAME) name = reader.string();
    else if (tag === SERVICE_METHOD)
      methods.push(reader.message("google.protobuf.MethodDescriptorProto"));
    else reader.skip(tag & 7);
  }
  const fullName = qualify(scope, name);
  contents.symbols.push(fullName);
  for (const method of methods) contents.symbols.push(qualify(fullName, readName(method)));
}

/** An extension declared in `scope` (the package, or the message it is nested in). */
function readExtension(reader: ProtoReader, scope: string, contents: FileContents): void {
  const { name, extendee, number } = readField(reader);
  contents.symbols.push(qualify(scope, name));
  // protoc writes extendees fully qualified with a leading dot; protobufjs may leave it out.
  const type = extendee.startsWith(".") ? extendee.slice(1) : extendee;
  if (type !== "") contents.extensions.push({ extendee: type, number });
}

function readField(reader: ProtoReader): { name: string; extendee: string; number: number } {
  let name = "";
  let extendee = "";
  let number = 0;
  while (!reader.done) {
    const tag = reader.tag();
    if (tag === FIELD_NAME) name = reader.string();
    else if (tag === FIELD_EXTENDEE) extendee = reader.string();
    else if (tag === FIELD_NUMBER) number = reader.int32();
    else reader.skip(tag & 7);
  }
  return { name, extendee, number };
}
