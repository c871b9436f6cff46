// Passwords for the account commands: from a no-echo prompt, or from stdin with --password-stdin; never
// from argv, where they would land in shell history and the process list.
import { UsageError } from "./args";

/** Reads a password: all of stdin (first line) with --password-stdin, else a no-echo prompt asked twice. */
export async function readPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) {
    const text = await new Response(Bun.stdin.stream()).text();
    return text.split(/\r?\n/)[0] ?? "";
  }
  if (!process.stdin.isTTY) throw new UsageError("stdin is not a terminal: pass the password on stdin with --password-stdin");
  const first = await prompt("Password (at least 10 characters): ");
  const second = await prompt("Repeat password: ");
  if (first !== second) throw new UsageError("the two passwords differ");
  return first;
}

function prompt(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    stdin.setRawMode(true);
    stdin.resume();
    let value = "";
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003") return done(new UsageError("cancelled"));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else if (ch >= " ") value += ch;
      }
    };
    stdin.on("data", onData);
  });
}
