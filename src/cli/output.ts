// Terminal output helpers: colour only on a TTY, and never when NO_COLOR is set.
const useColor = () => process.stdout.isTTY === true && !("NO_COLOR" in process.env);
const wrap = (code: number) => (s: string) => (useColor() ? `\x1b[${code}m${s}\x1b[0m` : s);
export const green = wrap(32);
export const yellow = wrap(33);
export const red = wrap(31);
export const bold = wrap(1);
export const dim = wrap(2);

export const print = (s = "") => process.stdout.write(s + "\n");
export const printErr = (s: string) => process.stderr.write(s + "\n");

/** What a visibility change means for the URLs, the way the other commands say what their change does. */
export function visibilityNote(patch: { visibility?: string }, visibility: string): string {
  if (patch.visibility === undefined) return "";
  return visibility === "private" ? ". Its URLs answer only to the organization's sessions and API keys now (404 to others)" : ". Its published URLs answer anyone now";
}
