// What is wrong with a JSON file, in words that point at the place: JavaScriptCore's JSON.parse says
// "Property name must be a string literal" with no position, and a file cut short (a copy that stopped
// early) reads best as "it looks truncated". Shared by every CLI command that reads a JSON file and by
// the streaming GeoJSON scanner of uploads.

/** The words for JSON text that ends before it is complete: inside a string, or with brackets open. */
export function endsEarlyWords(where: { line: number; column?: number; openBrackets: number; inString: boolean }): string {
  const at = `line ${where.line}${where.column !== undefined ? `, column ${where.column}` : ""}`;
  if (where.inString) return `the file ends inside a string (${at}): it looks truncated`;
  const n = where.openBrackets;
  return `the file ends before the JSON is complete (${n} unclosed bracket${n === 1 ? "" : "s"} at ${at}): it looks truncated`;
}

/** JSON text that does not parse: the message names the line and column of the first problem. */
export class JsonTextError extends Error {}

/** JSON.parse, with a JsonTextError naming `name`, the line and the column when the text is not JSON. */
export function parseJsonText(text: string, name: string): unknown {
  try {
    // a byte order mark (Windows editors write one) is no part of the JSON
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw new JsonTextError(`${name} is not valid JSON: ${firstProblem(text)}`);
  }
}

/** Where the text first stops being JSON, and why; run only after JSON.parse has refused it. */
function firstProblem(text: string): string {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let open = 0;
  const position = (at: number) => {
    let line = 1;
    let from = 0;
    for (let k = text.indexOf("\n"); k !== -1 && k < at; k = text.indexOf("\n", k + 1)) {
      line++;
      from = k + 1;
    }
    return { line, column: at - from + 1 };
  };
  class Stop extends Error {}
  const fail = (why: string, at = i): never => {
    const { line, column } = position(at);
    throw new Stop(`${why} at line ${line}, column ${column}`);
  };
  const ended = (inString = false): never => {
    throw new Stop(endsEarlyWords({ ...position(text.length), openBrackets: open, inString }));
  };
  const shown = (c: string) => (c === "\n" ? "a line break" : `'${c}'`);
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
    if (i >= text.length) ended();
  };
  const string = () => {
    i++;
    for (;;) {
      if (i >= text.length) ended(true);
      const c = text[i]!;
      if (c === '"') return void i++;
      if (c === "\\") {
        if (i + 1 >= text.length) ended(true);
        const e = text[i + 1]!;
        if (e === "u" ? !/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)) : !'"\\/bfnrt'.includes(e)) fail(`a bad escape \\${e} in a string`);
        i += e === "u" ? 6 : 2;
      } else if (c < " ") fail(`${shown(c)} inside a string (close the string first)`);
      else i++;
    }
  };
  const value = (depth: number): void => {
    ws();
    const c = text[i]!;
    if (c === "{" || c === "[") {
      if (depth > 10_000) fail("nesting too deep");
      open++;
      i++;
      ws();
      const close = c === "{" ? "}" : "]";
      if (text[i] === close) {
        open--;
        return void i++;
      }
      for (;;) {
        if (c === "{") {
          ws();
          if (text[i] !== '"') fail(`expected a property name in double quotes, found ${shown(text[i]!)}`);
          string();
          ws();
          if (text[i] !== ":") fail(`expected ':' after the property name, found ${shown(text[i]!)}`);
          i++;
        }
        value(depth + 1);
        ws();
        if (text[i] === ",") {
          i++;
          ws();
          if (text[i] === close) fail(`a trailing comma before '${close}'`, i);
          continue;
        }
        if (text[i] === close) {
          open--;
          return void i++;
        }
        fail(`expected ',' or '${close}', found ${shown(text[i]!)}`);
      }
    }
    if (c === '"') return string();
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400))?.[0];
    if (literal) {
      i += literal.length;
      return;
    }
    // A literal cut short at the end ("tru") is truncation too.
    if (i + 5 >= text.length && /^(?:t|tr|tru|f|fa|fal|fals|n|nu|nul|-)$/.test(text.slice(i))) ended();
    fail(`unexpected ${shown(c)}`);
  };
  try {
    if (i >= text.length || !text.slice(i).trim()) return "the file is empty";
    value(0);
    while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
    if (i < text.length) fail(`unexpected ${shown(text[i]!)} after the end of the JSON`);
    return "it does not parse";
  } catch (err) {
    if (err instanceof Stop) return err.message;
    throw err;
  }
}
