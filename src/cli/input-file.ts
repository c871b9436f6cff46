// What is wrong with a file named on the command line, in words that point at the mistake: a typo
// (it does not exist), a directory, or a file this user may not read.
import { accessSync, constants, statSync } from "node:fs";
import { currentUserWords } from "../os-user";

/** Null when `path` is a file this user can read. */
export function inputFileProblem(path: string): string | null {
  let st;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch {
    return `${path} cannot be reached: ${currentUserWords()} may not look into its directory`;
  }
  if (!st) return `${path} does not exist`;
  if (st.isDirectory()) return `${path} is a directory; name the file itself`;
  if (!st.isFile()) return `${path} is not a regular file`;
  try {
    accessSync(path, constants.R_OK);
  } catch {
    return `${path} is not readable by ${currentUserWords()}`;
  }
  return null;
}
