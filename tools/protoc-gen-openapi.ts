import { create, createFileRegistry } from "@bufbuild/protobuf";
import {
  CodeGeneratorResponse_Feature,
  CodeGeneratorResponseSchema,
  FileDescriptorSetSchema,
} from "@bufbuild/protobuf/wkt";
import { type Plugin, runNodeJs } from "@bufbuild/protoplugin";
import { openApiDocument } from "./openapi/document.ts";

/**
 * A buf plugin writing `openapi.json`, the OpenAPI 3.1 document of the REST door, so the
 * document is generated and checked fresh with the rest of src/gen.
 */
const plugin: Plugin = {
  name: "protoc-gen-openapi",
  version: "v1",
  run(request) {
    const registry = createFileRegistry(
      create(FileDescriptorSetSchema, { file: request.protoFile }),
    );
    const supportedFeatures = BigInt(CodeGeneratorResponse_Feature.PROTO3_OPTIONAL);
    // buf runs the plugin once per input; only the one holding Lading's protos has a document.
    if (!request.fileToGenerate.some((name) => name.startsWith("lading/")))
      return create(CodeGeneratorResponseSchema, { supportedFeatures });
    const document = openApiDocument(registry);
    return create(CodeGeneratorResponseSchema, {
      supportedFeatures,
      file: [{ name: "openapi.json", content: `${JSON.stringify(document, null, 2)}\n` }],
    });
  },
};
runNodeJs(plugin);
