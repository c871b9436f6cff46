// Name matching works on a folded form of every name: no accents, lower case, punctuation as spaces,
// so "São Paulo", "sao-paulo" and "SAO PAULO" meet. Typos are measured on that form.

const COMBINING_MARKS = /\p{M}+/gu;
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;
/** Letters that NFKD does not decompose but people type without their stroke or ligature. */
const FOLD: Record<string, string> = { ß: "ss", ø: "o", đ: "d", ł: "l", æ: "ae", œ: "oe", ı: "i", þ: "th", ð: "d" };
const FOLDABLE = /[ßøđłæœıþð]/g;

const ASCII = /^[\x00-\x7f]*$/;
const NOT_ASCII_LETTER_OR_DIGIT = /[^a-z0-9]+/g;

export function foldName(text: string): string {
  // Most names are plain ASCII: they need no Unicode decomposition (a third of an import's time).
  if (ASCII.test(text)) return foldAscii(text);
  const unmarked = text.normalize("NFKD").replace(COMBINING_MARKS, "");
  // Most accented Latin names are ASCII once their marks are gone (Zürich, São Paulo): for those the
  // steps below come to foldAscii's (FOLDABLE letters are not ASCII; \p{L} and \p{N} in lower-case
  // ASCII are a-z and 0-9), at a third of the cost of the Unicode-aware expressions.
  if (ASCII.test(unmarked)) return foldAscii(unmarked);
  return unmarked
    .toLowerCase()
    .replace(FOLDABLE, (c) => FOLD[c]!)
    .replace(NOT_LETTER_OR_DIGIT, " ")
    .trim();
}

/** Lower-case letters and digits in words one space apart: already folded. */
const FOLDED_ASCII = /^[a-z0-9]+(?: [a-z0-9]+)*$/;

/** foldName of an ASCII text; most come out of toLowerCase already folded, which one test tells. */
function foldAscii(text: string): string {
  const lower = text.toLowerCase();
  return FOLDED_ASCII.test(lower) ? lower : lower.replace(NOT_ASCII_LETTER_OR_DIGIT, " ").trim();
}

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions), or `max + 1` as soon as
 * it is certain to exceed `max`: callers only care about small distances.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  let prevPrev = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let best = row[0];
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prevPrev[j - 2]! + 1);
      row[j] = d;
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    [prevPrev, prev, row] = [prev, row, prevPrev];
  }
  return Math.min(prev[b.length]!, max + 1);
}

/** Typos tolerated in a word of `length` folded characters. */
export const typoBudget = (length: number) => (length < 4 ? 0 : length < 8 ? 1 : 2);
