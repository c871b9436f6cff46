// Finishes the document @elysiajs/swagger generates into a valid OpenAPI 3.1 document that says only
// what is true. The plugin leaves three things wrong, fixed here in one pass over the tree:
// - responses without `description` (required by OpenAPI): given the status's reason phrase;
// - TypeBox tuples (`items: [..]`, JSON Schema draft 7) where 3.1's JSON Schema 2020-12 wants
//   `prefixItems`;
// - every JSON answer also listed as text/plain and multipart/form-data (the plugin's default
//   content types): a response with a JSON schema keeps application/json only; a schema the plugin
//   spread into the Response Object itself (unions, arrays) moves into its content;
// - parameter `examples` given as a list (a JSON Schema habit) move into the parameter's schema;
// - Elysia's t.Integer and t.Numeric, which accept a numeric string too (for query and path values),
//   documented as "a string or an integer": each becomes the plain integer or number it is on the wire,
//   so generated clients type `version` as a number.
// It also adds the answers the HTTP conventions give for a body (route-facts.ts marks each operation
// with its body kind): 413 over the limit, and for JSON 411 for a chunked body without a length and,
// where the route takes a body, 415 for one of another Content-Type.
import { STATUS_CODES } from "node:http";
import { ErrorEnvelope } from "../../errors";
import { BODY_EXTENSION, OPTIONAL_BODY } from "../../http/route-facts";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The number member of Elysia's coercing union (`{type: string, format: integer|numeric}` or a number), if that is what `anyOf` is. */
function coercedNumber(anyOf: unknown): Json | null {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return null;
  const text = anyOf.find((m) => isObject(m) && m.type === "string" && (m.format === "integer" || m.format === "numeric"));
  const number = anyOf.find((m) => isObject(m) && (m.type === "integer" || m.type === "number"));
  return text && number ? (number as Json) : null;
}

/** A schema tree with every draft-7 tuple rewritten as a 2020-12 `prefixItems` tuple. */
function schema2020(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(schema2020);
  if (!isObject(node)) return node;
  const number = coercedNumber(node.anyOf);
  if (number) {
    const { anyOf: _, ...own } = node;
    return schema2020({ ...number, ...own });
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "items" && Array.isArray(value)) {
      out.prefixItems = value.map(schema2020);
      if (node.additionalItems === false) out.items = false;
    } else if (key !== "additionalItems" || !Array.isArray(node.items)) out[key] = schema2020(value);
  }
  return out;
}

const RESPONSE_FIELDS = new Set(["description", "headers", "content", "links"]);

function finishResponse(status: string, response: Json): Json {
  let out = schema2020(response) as Json;
  const stray = Object.keys(out).filter((k) => !RESPONSE_FIELDS.has(k));
  if (stray.length) {
    const schema = Object.fromEntries(stray.map((k) => [k, out[k]]));
    out = { description: out.description, content: (out.content as Json | undefined) ?? { "application/json": { schema } } };
  }
  const content = out.content as Json | undefined;
  const json = content?.["application/json"] as Json | undefined;
  if (content && json && (content["text/plain"] || content["multipart/form-data"])) out.content = { "application/json": json };
  if (typeof out.description !== "string" || out.description === "") {
    const fromSchema = isObject(json?.schema) ? (json.schema as Json).description : undefined;
    out.description = typeof fromSchema === "string" && fromSchema ? fromSchema : (STATUS_CODES[Number(status)] ?? `HTTP ${status}`);
  }
  return out;
}

const envelope = (description: string) => ({ description, content: { "application/json": { schema: ErrorEnvelope } } });

function bodyAnswers(kind: unknown, takesBody: boolean): Json {
  if (kind === "upload") return { 413: envelope("Upload over MAX_UPLOAD_MB") };
  if (kind === "json")
    return {
      411: envelope("Chunked body without Content-Length"),
      413: envelope("Body over the 10 MiB JSON limit"),
      ...(takesBody ? { 415: envelope("Body sent under another Content-Type than application/json") } : {}),
    };
  return {};
}

function finishParameter(parameter: unknown): unknown {
  if (!isObject(parameter) || !Array.isArray(parameter.examples)) return parameter;
  const { examples, ...rest } = parameter;
  return { ...rest, schema: { ...(rest.schema as Json | undefined), examples } };
}

export function finishOpenApiDocument(doc: Json): Json {
  const paths: Json = {};
  for (const [path, operations] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    const ops: Json = {};
    for (const [method, operation] of Object.entries(operations)) {
      if (!isObject(operation)) {
        ops[method] = operation;
        continue;
      }
      const op = schema2020(operation) as Json;
      // Elysia documents every body schema as required, an optional one too (t.Optional): a route
      // that takes no body as well says so with this extension.
      if (op[OPTIONAL_BODY]) {
        if (isObject(op.requestBody)) op.requestBody = { ...op.requestBody, required: false };
        delete op[OPTIONAL_BODY];
      }
      if (Array.isArray(op.parameters)) op.parameters = op.parameters.map(finishParameter);
      const responses: Json = { ...(isObject(operation.responses) ? operation.responses : {}), ...bodyAnswers(operation[BODY_EXTENSION], operation.requestBody !== undefined) };
      op.responses = Object.fromEntries(Object.entries(responses).map(([status, r]) => [status, isObject(r) ? finishResponse(status, r) : r]));
      ops[method] = op;
    }
    paths[path] = ops;
  }
  return { ...doc, paths, components: schema2020(doc.components) };
}
