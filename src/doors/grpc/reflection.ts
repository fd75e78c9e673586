import {
  clone,
  create,
  createFileRegistry,
  type DescFile,
  type DescService,
  toBinary,
} from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import {
  file_grpc_reflection_v1_reflection,
  ServerReflection,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
  ServerReflectionResponseSchema,
} from "../../gen/grpc/reflection/v1/reflection_pb.js";

/**
 * grpc.reflection.v1alpha.ServerReflection: the same messages as v1 under the package older
 * clients (grpcurl before 1.8.8, some IDE plugins) still ask for. Built from the v1 descriptor
 * at start-up rather than generated, since the wire format is identical.
 */
const v1alphaService: DescService = (() => {
  const proto = clone(FileDescriptorProtoSchema, file_grpc_reflection_v1_reflection.proto);
  proto.name = "grpc/reflection/v1alpha/reflection.proto";
  proto.package = "grpc.reflection.v1alpha";
  proto.options = undefined;
  const rename = (typeName: string) =>
    typeName.replace(".grpc.reflection.v1.", ".grpc.reflection.v1alpha.");
  for (const method of proto.service.flatMap((s) => s.method)) {
    method.inputType = rename(method.inputType);
    method.outputType = rename(method.outputType);
  }
  for (const field of proto.messageType.flatMap((m) => m.field))
    field.typeName = rename(field.typeName);
  const registry = createFileRegistry(proto, () => undefined);
  const service = registry.getService("grpc.reflection.v1alpha.ServerReflection");
  if (!service) throw new Error("grpc.reflection.v1alpha.ServerReflection did not build");
  return service;
})();

/** The reflection services, v1 and v1alpha, as served. */
export const reflectionServices: readonly DescService[] = [ServerReflection, v1alphaService];

/** Files and symbols reflection can describe. */
interface DescriptorIndex {
  files: Map<string, DescFile>;
  symbols: Map<string, DescFile>;
  services: string[];
}

function indexDescriptors(services: readonly DescService[]): DescriptorIndex {
  const files = new Map<string, DescFile>();
  const symbols = new Map<string, DescFile>();
  const addFile = (file: DescFile) => {
    if (files.has(file.proto.name)) return;
    files.set(file.proto.name, file);
    for (const type of nestedTypes(file)) {
      symbols.set(type.typeName, file);
      if (type.kind === "service")
        for (const m of type.methods) symbols.set(`${type.typeName}.${m.name}`, file);
    }
    for (const dep of file.dependencies) addFile(dep);
  };
  for (const service of services) addFile(service.file);
  return { files, symbols, services: services.map((s) => s.typeName) };
}

/** The file and every file it imports, transitively, each once, the file first. */
function withDependencies(file: DescFile): Uint8Array[] {
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  const visit = (f: DescFile) => {
    if (seen.has(f.proto.name)) return;
    seen.add(f.proto.name);
    out.push(toBinary(FileDescriptorProtoSchema, f.proto));
    for (const dep of f.dependencies) visit(dep);
  };
  visit(file);
  return out;
}

type ResponseInit = Parameters<typeof create<typeof ServerReflectionResponseSchema>>[1];

function answer(
  index: DescriptorIndex,
  req: ServerReflectionRequest,
): NonNullable<ResponseInit>["messageResponse"] {
  const notFound = (what: string) => ({
    case: "errorResponse" as const,
    value: { errorCode: Code.NotFound, errorMessage: `${what} not found` },
  });
  const files = (file: DescFile | undefined, what: string) =>
    file
      ? {
          case: "fileDescriptorResponse" as const,
          value: { fileDescriptorProto: withDependencies(file) },
        }
      : notFound(what);
  const request = req.messageRequest;
  switch (request.case) {
    case "listServices":
      return {
        case: "listServicesResponse",
        value: { service: index.services.map((name) => ({ name })) },
      };
    case "fileByFilename":
      return files(index.files.get(request.value), `file ${request.value}`);
    case "fileContainingSymbol":
      return files(index.symbols.get(request.value.replace(/^\./, "")), `symbol ${request.value}`);
    case "fileContainingExtension": {
      const { containingType, extensionNumber } = request.value;
      const file = [...index.files.values()].find((f) =>
        [...nestedTypes(f)].some(
          (t) =>
            t.kind === "extension" &&
            t.extendee.typeName === containingType &&
            t.number === extensionNumber,
        ),
      );
      return files(file, `extension ${containingType}(${extensionNumber})`);
    }
    case "allExtensionNumbersOfType": {
      if (!index.symbols.has(request.value)) return notFound(`type ${request.value}`);
      const numbers = [...index.files.values()].flatMap((f) =>
        [...nestedTypes(f)].flatMap((t) =>
          t.kind === "extension" && t.extendee.typeName === request.value ? [t.number] : [],
        ),
      );
      return {
        case: "allExtensionNumbersResponse",
        value: { baseTypeName: request.value, extensionNumber: numbers },
      };
    }
    default:
      return {
        case: "errorResponse",
        value: { errorCode: Code.InvalidArgument, errorMessage: "no message_request set" },
      };
  }
}

/**
 * Registers gRPC server reflection (v1 and v1alpha) describing `services`, the reflection
 * services themselves and every file they import. Needs no credentials: it reveals only the
 * public contract. Unknown files and symbols get an error response with NOT_FOUND.
 */
export function registerReflection(router: ConnectRouter, services: readonly DescService[]): void {
  const index = indexDescriptors([...services, ...reflectionServices]);
  for (const service of reflectionServices) {
    router.service(service, {
      async *serverReflectionInfo(requests: AsyncIterable<ServerReflectionRequest>) {
        for await (const req of requests) {
          const response: ServerReflectionResponse = create(ServerReflectionResponseSchema, {
            validHost: req.host,
            originalRequest: req,
            messageResponse: answer(index, req),
          });
          yield response;
        }
      },
    } as never);
  }
}
