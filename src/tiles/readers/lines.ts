// Streams a text file line by line without loading it whole; counts bytes for progress.
import type { ReadProgress } from "./types";

export async function* readLines(path: string, progress: ReadProgress): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  let carry = "";
  let first = true;
  for await (const chunk of Bun.file(path).stream() as unknown as AsyncIterable<Uint8Array>) {
    progress.bytes += chunk.length;
    let text = carry + decoder.decode(chunk, { stream: true });
    if (first) {
      text = text.replace(/^\uFEFF/, "");
      first = false;
    }
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      yield text.charCodeAt(nl - 1) === 13 ? text.slice(start, nl - 1) : text.slice(start, nl);
      start = nl + 1;
    }
    carry = text.slice(start);
  }
  carry += decoder.decode();
  if (carry.length) yield carry.endsWith("\r") ? carry.slice(0, -1) : carry;
}
