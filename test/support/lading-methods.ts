import { readdirSync } from "node:fs";
import { join } from "node:path";
import {
  type DescEnum,
  type DescFile,
  type DescMessage,
  type DescMethod,
  getOption,
  hasOption,
} from "@bufbuild/protobuf";
import { http } from "../../src/gen/google/api/annotations_pb.js";
import { type Authorization, authorization } from "../../src/gen/lading/iam/v2/annotations_pb.js";

const genRoot = new URL("../../src/gen/lading/", import.meta.url);

/**
 * Every generated Lading file, found on disk so a new proto file is included without naming it
 * here.
 */
export async function ladingFiles(): Promise<DescFile[]> {
  const files: DescFile[] = [];
  const paths = readdirSync(genRoot, { recursive: true, encoding: "utf8" });
  for (const path of paths.filter((p) => p.endsWith("_pb.js")).sort()) {
    const module = (await import(new URL(join(".", path), genRoot).href)) as Record<
      string,
      unknown
    >;
    for (const [name, value] of Object.entries(module)) {
      if (name.startsWith("file_")) files.push(value as DescFile);
    }
  }
  return files;
}

/** `package.Service.Method`, the key of the scenario table. */
export function fullName(method: DescMethod): string {
  return `${method.parent.typeName}.${method.name}`;
}

/** Every RPC of every Lading service. */
export async function ladingMethods(): Promise<DescMethod[]> {
  return (await ladingFiles()).flatMap((f) => f.services.flatMap((s) => s.methods));
}

/** The method's lading.iam.v2.authorization option, or undefined when it has none. */
export function authorizationOf(method: DescMethod): Authorization | undefined {
  return hasOption(method, authorization) ? getOption(method, authorization) : undefined;
}

/** True unless the method's google.api.http rule is a GET: it may change something. */
export function isMutating(method: DescMethod): boolean {
  return getOption(method, http).pattern.case !== "get";
}

/**
 * The fields of `message`, recursively, that can name a capability (an enum field of
 * lading.iam.v2.Capability) or a role (a field whose name contains "role"), as dotted paths.
 */
export function grantingFields(message: DescMessage, seen = new Set<string>()): string[] {
  if (seen.has(message.typeName)) return [];
  seen.add(message.typeName);
  const out: string[] = [];
  for (const field of message.fields) {
    const enumType = (field as { enum?: DescEnum }).enum;
    if (enumType?.typeName === "lading.iam.v2.Capability" || field.name.includes("role")) {
      out.push(field.name);
    }
    const nested = field.message;
    if (nested) out.push(...grantingFields(nested, seen).map((p) => `${field.name}.${p}`));
  }
  return out;
}
