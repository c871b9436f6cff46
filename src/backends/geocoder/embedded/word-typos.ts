// Typos of one word, found without scanning (SymSpell's deletion keys): every distinct word of the
// names (of 4 letters or more, the shortest with a typo budget) is stored under itself and under each
// form of it with one letter deleted. A typed word with one typo (a letter dropped, added, changed, or
// two swapped) shares a key with its word: itself, or one of its own one-letter deletions. For words
// with a budget of two, the typed word's two-letter deletions are looked up too, which finds two added
// letters, or one added and one changed; other double typos are left to the scans by first letters.
// The table only grows: a word whose names were deleted stays, and simply holds no names any more.
import type { Database } from "bun:sqlite";
import { editDistance, typoBudget } from "./text";

export const WORD_DELETES = "CREATE TABLE IF NOT EXISTS word_deletes (key TEXT NOT NULL, word TEXT NOT NULL, PRIMARY KEY (key, word)) WITHOUT ROWID;";

/** Shorter words have no typo budget (text.ts), so they need no keys. */
export const MIN_TYPO_WORD = 4;
/** Key rows written by one INSERT statement (2 columns each). */
const KEYS_PER_INSERT = 256;

/** The word with each one of its letters deleted, without repeats. */
export function deletions(word: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i < word.length; i++) out.add(word.slice(0, i) + word.slice(i + 1));
  return [...out];
}

/** Stores the keys of the words not yet in the table (inside the caller's transaction). */
export function addWordKeys(db: Database, words: Iterable<string>) {
  const known = db.query<unknown, [string]>("SELECT 1 FROM word_deletes WHERE key = ?1 AND word = ?1");
  const insert = (rows: number) => db.query<null, string[]>(`INSERT OR IGNORE INTO word_deletes (key, word) VALUES ${Array(rows).fill("(?, ?)").join(", ")}`);
  const full = insert(KEYS_PER_INSERT);
  const pending: string[] = [];
  const flush = () => {
    if (pending.length === KEYS_PER_INSERT * 2) full.run(...pending);
    else if (pending.length) insert(pending.length / 2).run(...pending);
    pending.length = 0;
  };
  for (const word of words) {
    if (word.length < MIN_TYPO_WORD || known.get(word)) continue;
    for (const key of [word, ...deletions(word)]) {
      pending.push(key, word);
      if (pending.length === KEYS_PER_INSERT * 2) flush();
    }
  }
  flush();
}

/** Looks up the stored words within `budget` typos of a typed word (the word itself included). */
export function createWordTypos(db: Database) {
  const byKeys = db.query<{ word: string }, [string]>("SELECT DISTINCT word FROM word_deletes WHERE key IN (SELECT value FROM json_each(?))");
  return (typed: string, budget = typoBudget(typed.length)): string[] => {
    if (budget === 0) return [typed];
    const keys = new Set([typed, ...deletions(typed)]);
    if (budget >= 2) for (const once of deletions(typed)) for (const twice of deletions(once)) keys.add(twice);
    return byKeys
      .all(JSON.stringify([...keys]))
      .map((r) => r.word)
      .filter((w) => editDistance(typed, w, budget) <= budget);
  };
}
