// Feature filters of a layer recipe, in the legacy MapLibre filter syntax people know from styles:
// ["==", "class", "primary"], ["in", "kind", "a", "b"], ["has", "name"], [">=", "population", 1000],
// combined with ["all", ...], ["any", ...] and ["none", ...].

export type Filter = unknown[];
type Props = Record<string, unknown>;

const COMPARE = new Set(["==", "!=", "<", "<=", ">", ">="]);
const MEMBERSHIP = new Set(["in", "!in"]);
const PRESENCE = new Set(["has", "!has"]);
const COMBINE = new Set(["all", "any", "none"]);
const isScalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

/** Returns what is wrong with a filter (for a 400), or null. */
export function filterProblem(f: unknown, depth = 0): string | null {
  if (!Array.isArray(f) || typeof f[0] !== "string") return 'a filter is an array starting with an operator, e.g. ["==", "class", "primary"]';
  if (depth > 16) return "the filter nests too deeply";
  const [op, ...args] = f as [string, ...unknown[]];
  if (COMBINE.has(op)) {
    for (const sub of args) {
      const p = filterProblem(sub, depth + 1);
      if (p) return p;
    }
    return null;
  }
  if (typeof args[0] !== "string") return `filter "${op}" needs an attribute name as its second element`;
  if (COMPARE.has(op)) return args.length === 2 && isScalar(args[1]) ? null : `filter "${op}" takes an attribute and one string, number, boolean or null`;
  if (MEMBERSHIP.has(op)) return args.slice(1).every(isScalar) ? null : `filter "${op}" takes an attribute and string, number, boolean or null values`;
  if (PRESENCE.has(op)) return args.length === 1 ? null : `filter "${op}" takes only an attribute name`;
  return `unknown filter operator "${op.slice(0, 20)}"; use ==, !=, <, <=, >, >=, in, !in, has, !has, all, any or none`;
}

/** Whether a feature's properties pass a filter checked by filterProblem. */
export function passes(f: Filter, props: Props): boolean {
  const op = f[0] as string;
  switch (op) {
    case "all":
      return f.slice(1).every((s) => passes(s as Filter, props));
    case "any":
      return f.slice(1).some((s) => passes(s as Filter, props));
    case "none":
      return !f.slice(1).some((s) => passes(s as Filter, props));
    case "has":
      return props[f[1] as string] !== undefined;
    case "!has":
      return props[f[1] as string] === undefined;
  }
  const v = props[f[1] as string] ?? null;
  switch (op) {
    case "==":
      return v === f[2];
    case "!=":
      return v !== f[2];
    case "in":
      return f.slice(2).includes(v);
    case "!in":
      return !f.slice(2).includes(v);
  }
  const w = f[2];
  if (typeof v !== typeof w || v === null) return false;
  const a = v as number | string;
  const b = w as number | string;
  return op === "<" ? a < b : op === "<=" ? a <= b : op === ">" ? a > b : a >= b;
}
