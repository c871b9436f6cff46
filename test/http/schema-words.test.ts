// Validation messages put a union's choices in words.
import { expect, test } from "bun:test";
import { t } from "elysia";
import { acceptedBy } from "../../src/http/schema-words";

test("each kind of choice, nested unions flattened, Elysia's text form of a number left out", () => {
  expect(acceptedBy(t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")]))).toBe('"owner", "admin" or "member"');
  expect(acceptedBy(t.Union([t.Numeric({ minimum: 0 }), t.Null()]))).toBe("a number of at least 0 or null");
  expect(acceptedBy(t.Union([t.Integer({ maximum: 9 }), t.Boolean(), t.Array(t.String())]))).toBe("an integer of at most 9, true or false or an array");
  expect(acceptedBy(t.Union([t.String({ format: "date-time" }), t.Object({})]))).toBe("a date-time string or an object");
  expect(acceptedBy(t.Union([t.Number(), t.Number()]))).toBe("a number");
  // A choice it cannot describe leaves the message to TypeBox rather than half-naming the choices.
  expect(acceptedBy(t.Union([t.Any(), t.Null()]))).toBeNull();
});
