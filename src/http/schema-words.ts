// What a schema accepts, in words, for validation messages. TypeBox says only "Expected union value"
// for a union (e.g. "an integer from 1 to 100000, or null"), which names neither choice.
interface SchemaLike {
  anyOf?: SchemaLike[];
  const?: unknown;
  type?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

function range(s: SchemaLike): string {
  if (s.minimum !== undefined && s.maximum !== undefined) return ` from ${s.minimum} to ${s.maximum}`;
  if (s.minimum !== undefined) return ` of at least ${s.minimum}`;
  if (s.maximum !== undefined) return ` of at most ${s.maximum}`;
  return "";
}

function one(s: SchemaLike): string | null {
  if (s.anyOf) return acceptedBy(s);
  if (s.const !== undefined) return JSON.stringify(s.const);
  switch (s.type) {
    case "null":
      return "null";
    case "integer":
      return `an integer${range(s)}`;
    case "number":
      return `a number${range(s)}`;
    case "boolean":
      return "true or false";
    case "string":
      return `a ${s.format === "date-time" ? "date-time " : ""}string${s.maxLength !== undefined ? ` of at most ${s.maxLength} characters` : ""}`;
    case "array":
      return "an array";
    case "object":
      return "an object";
  }
  return null;
}

/** Elysia's t.Integer/t.Numeric is itself a union with the number's text form; that is not a choice. */
const isTextFormOfNumber = (s: SchemaLike) => s.type === "string" && (s.format === "integer" || s.format === "numeric");

/** "an integer from 1 to 5 or null"; null when some choice cannot be put in words. */
export function acceptedBy(schema: object): string | null {
  const s = schema as SchemaLike;
  const choices = (s.anyOf ?? [s]).filter((s) => !isTextFormOfNumber(s)).map(one);
  if (choices.some((c) => c === null)) return null;
  const unique = [...new Set(choices as string[])];
  return unique.length === 1 ? unique[0]! : `${unique.slice(0, -1).join(", ")} or ${unique.at(-1)}`;
}
