/**
 * Envoy's own API, as messages difftry can check, encode and decode: the `.proto` files
 * `@grpc/grpc-js-xds` ships (Envoy's API, xds, protoc-gen-validate, googleapis) are parsed with
 * protobufjs, turned into a descriptor set, and handed to `@bufbuild/protobuf`, whose JSON parser
 * rejects unknown fields, wrong types, bad enums and malformed durations — and checks every
 * `typed_config` (`google.protobuf.Any`) against the message its `@type` names. The xDS server
 * encodes its resources with it; the tests check every generated Envoy document with it.
 *
 * Custom options (validate rules, udpa/xds annotations) are dropped: they say nothing about a
 * document's shape. So `min_len`-style rules are not checked here; the semantic assertions of
 * the generators' tests cover what matters to DiffTry.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  createFileRegistry,
  type DescMessage,
  fromBinary,
  fromJson,
  type JsonValue,
  type Message,
  type Registry,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';

/** The Envoy files the generated documents use, with everything they import. */
const ENTRY_FILES = [
  'envoy/config/bootstrap/v3/bootstrap.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/config/listener/v3/listener.proto',
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy/service/discovery/v3/discovery.proto',
  'envoy/service/discovery/v3/ads.proto',
  'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
];

/** Packages whose types only ever appear as custom options. */
const OPTION_ONLY = /^\.(validate|udpa\.annotations|xds\.annotations\.v3|envoy\.annotations)\./;

interface FieldDesc {
  name: string;
  typeName?: string;
  extendee?: string;
  options?: unknown;
}
interface MessageDesc {
  name: string;
  field?: FieldDesc[];
  nestedType?: MessageDesc[];
  enumType?: { name: string }[];
  extension?: unknown;
  options?: unknown;
}
interface FileDesc {
  name: string;
  package?: string;
  dependency?: string[];
  messageType?: MessageDesc[];
  enumType?: { name: string }[];
  extension?: FieldDesc[];
  service?: { method?: { inputType: string; outputType: string }[] }[];
  options?: unknown;
}

let cached: Registry | undefined;

/** The registry of Envoy's API messages (built once per process, about 0.2 s). */
export function envoyRegistry(): Registry {
  if (cached !== undefined) return cached;
  const require = createRequire(import.meta.url);
  const deps = join(dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps');
  const roots = ['envoy-api', 'xds', 'protoc-gen-validate', 'googleapis'].map((d) => join(deps, d));
  roots.push(dirname(require.resolve('protobufjs/package.json'))); // google/protobuf/*.proto
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) =>
    roots.map((r) => join(r, target)).find((path) => existsSync(path)) ??
    protobuf.util.path.resolve(origin, target);
  root.loadSync(ENTRY_FILES, { keepCase: true });
  root.resolveAll();
  const set = descriptor.FileDescriptorSet.toObject(
    (root as unknown as { toDescriptor(edition: string): protobuf.Message }).toDescriptor('proto3'),
    { enums: Number, longs: Number, defaults: false },
  ) as { file: FileDesc[] };
  qualify(set.file);
  const bytes = descriptor.FileDescriptorSet.encode(
    descriptor.FileDescriptorSet.fromObject(set),
  ).finish();
  cached = createFileRegistry(fromBinary(FileDescriptorSetSchema, bytes));
  return cached;
}

/** The schema of Envoy's message `typeName` (e.g. `envoy.config.listener.v3.Listener`). */
export function envoyMessage(typeName: string): DescMessage {
  const schema = envoyRegistry().getMessage(typeName);
  if (schema === undefined) throw new Error(`no Envoy message ${typeName}`);
  return schema;
}

/**
 * Parses `json` as Envoy's message `typeName` (e.g. `envoy.config.bootstrap.v3.Bootstrap`),
 * strictly: throws on any field, type, enum or duration Envoy would refuse.
 * @returns the message.
 */
export function parseEnvoy(typeName: string, json: unknown): Message {
  const registry = envoyRegistry();
  return fromJson(envoyMessage(typeName), json as JsonValue, { registry });
}

/**
 * Makes the descriptor set protobufjs writes acceptable to `@bufbuild/protobuf`: drops custom
 * options and extensions (and the extension fields protobufjs copies into the extended types),
 * qualifies every type name, fills each file's imports and orders the files by them.
 */
function qualify(files: FileDesc[]): void {
  const strip = (messages: MessageDesc[] = []) => {
    for (const m of messages) {
      m.field = (m.field ?? []).filter((f) => f.extendee === undefined && !f.name.startsWith('.'));
      for (const f of m.field) delete f.options;
      delete m.extension;
      // Keep only what shapes the message: a map field's entry type says it is a map.
      const mapEntry = (m.options as { mapEntry?: boolean } | undefined)?.mapEntry === true;
      if (mapEntry) m.options = { mapEntry: true };
      else delete m.options;
      strip(m.nestedType);
    }
  };
  for (const f of files) {
    delete f.extension;
    delete f.options;
    strip(f.messageType);
  }
  // Every fully-qualified type, and the file that declares it.
  const fileOf = new Map<string, string>();
  const collect = (file: string, scope: string, messages: MessageDesc[] = [], enums = []) => {
    for (const e of enums as { name: string }[]) fileOf.set(`${scope}.${e.name}`, file);
    for (const m of messages) {
      fileOf.set(`${scope}.${m.name}`, file);
      collect(file, `${scope}.${m.name}`, m.nestedType, m.enumType as never);
    }
  };
  for (const f of files) collect(f.name, scopeOf(f), f.messageType, f.enumType as never);
  const resolve = (scope: string, name: string): string => {
    if (name.startsWith('.')) return name;
    const parts = scope.split('.');
    for (let i = parts.length; i >= 0; i--) {
      const candidate = `${parts.slice(0, i).join('.')}.${name}`;
      if (fileOf.has(candidate)) return candidate;
    }
    throw new Error(`envoyApi: cannot resolve ${name} from ${scope}`);
  };
  for (const f of files) {
    const deps = new Set<string>();
    const optionsPackage = OPTION_ONLY.test(`${scopeOf(f)}.`);
    const walk = (scope: string, messages: MessageDesc[] = []) => {
      for (const m of messages) {
        const name = `${scope}.${m.name}`;
        for (const field of m.field ?? []) {
          if (field.typeName !== undefined) field.typeName = resolve(name, field.typeName);
        }
        // A field of an option-only type is a custom option copied in (FieldOptions.rules, …).
        if (!optionsPackage) m.field = (m.field ?? []).filter((x) => !isOptionType(x.typeName));
        for (const field of m.field ?? []) {
          if (field.typeName !== undefined) deps.add(fileOf.get(field.typeName) as string);
        }
        walk(name, m.nestedType);
      }
    };
    walk(scopeOf(f), f.messageType);
    for (const service of f.service ?? []) {
      for (const method of service.method ?? []) {
        method.inputType = resolve(scopeOf(f), method.inputType);
        method.outputType = resolve(scopeOf(f), method.outputType);
        deps.add(fileOf.get(method.inputType) as string);
        deps.add(fileOf.get(method.outputType) as string);
      }
    }
    deps.delete(f.name);
    f.dependency = [...deps];
  }
  // Imports before importers.
  const byName = new Map(files.map((f) => [f.name, f]));
  const ordered: FileDesc[] = [];
  const done = new Set<string>();
  const visit = (f: FileDesc, path: readonly string[]) => {
    if (done.has(f.name)) return;
    if (path.includes(f.name)) throw new Error(`envoyApi: import cycle ${path.join(' → ')}`);
    for (const d of f.dependency ?? []) visit(byName.get(d) as FileDesc, [...path, f.name]);
    done.add(f.name);
    ordered.push(f);
  };
  for (const f of files) visit(f, []);
  files.splice(0, files.length, ...ordered);
}

function isOptionType(typeName: string | undefined): boolean {
  return typeName !== undefined && OPTION_ONLY.test(typeName);
}

function scopeOf(file: FileDesc): string {
  return file.package ? `.${file.package}` : '';
}
