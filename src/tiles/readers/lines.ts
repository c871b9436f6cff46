// Streams a text file line by line without loading it whole; counts bytes for progress.
// Lines are cut on the bytes (a newline byte is never inside a UTF-8 sequence) and decoded one by one, so
// a file that is not UTF-8 (a CSV saved as Latin-1 by a spreadsheet) can be read as Windows-1252 line by
// line, with a warning, instead of its letters silently becoming U+FFFD.
import type { ReadProgress } from "./types";

const UTF8 = new TextDecoder("utf-8", { fatal: true });
const WINDOWS_1252 = new TextDecoder("windows-1252");
const NEWLINE = 10;
const CR = 13;

/** The lines of `path`; lines that are not UTF-8 are told in one warning prefixed with `label` (the file). */
export async function* readLines(path: string, label: string, progress: ReadProgress): AsyncGenerator<string> {
  let lineNo = 0;
  let notUtf8 = 0;
  let firstNotUtf8 = 0;
  try {
    yield* lines();
  } finally {
    if (notUtf8) {
      const which = notUtf8 === 1 ? `line ${firstNotUtf8} is` : `${notUtf8} lines (the first: line ${firstNotUtf8}) are`;
      (progress.warnings ??= []).push(`${label}: ${which} not UTF-8: read as Windows-1252 (Latin-1); if letters look wrong, save the file as UTF-8 and upload it again`);
    }
  }

  async function* lines(): AsyncGenerator<string> {
    const decode = (bytes: Uint8Array): string => {
      lineNo++;
      const end = bytes.length && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
      const line = bytes.subarray(0, end);
      let text: string;
      try {
        text = UTF8.decode(line);
      } catch {
        if (notUtf8++ === 0) firstNotUtf8 = lineNo;
        text = WINDOWS_1252.decode(line);
      }
      return lineNo === 1 ? text.replace(/^\uFEFF/, "") : text;
    };
    // The start of a line that runs past its chunk, kept in pieces and joined once (a long line would
    // otherwise be copied again with every chunk).
    let carry: Uint8Array[] = [];
    const whole = (last: Uint8Array) => (carry.length ? Buffer.concat([...carry, last]) : last);
    for await (const chunk of Bun.file(path).stream() as unknown as AsyncIterable<Uint8Array>) {
      progress.bytes += chunk.length;
      const last = chunk.lastIndexOf(NEWLINE);
      if (last < 0) {
        carry.push(chunk.slice());
        continue;
      }
      const first = chunk.indexOf(NEWLINE);
      yield decode(whole(chunk.subarray(0, first)));
      carry = [];
      // The whole lines between the first and the last newline: one decode and a split when they are UTF-8
      // (nearly always), else line by line.
      const middle = chunk.subarray(first + 1, last);
      const text = first < last ? utf8OrNull(middle) : null;
      if (text !== null)
        for (const line of text.split("\n")) {
          lineNo++;
          yield line.endsWith("\r") ? line.slice(0, -1) : line;
        }
      else if (first < last) {
        let start = 0;
        for (let nl = middle.indexOf(NEWLINE); ; nl = middle.indexOf(NEWLINE, start)) {
          yield decode(middle.subarray(start, nl < 0 ? middle.length : nl));
          if (nl < 0) break;
          start = nl + 1;
        }
      }
      if (last + 1 < chunk.length) carry.push(chunk.slice(last + 1));
    }
    if (carry.length) yield decode(whole(new Uint8Array(0)));
  }
}

function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
}
