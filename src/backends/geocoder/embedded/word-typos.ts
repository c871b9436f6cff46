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
/** Longer "words" are codes or run-together text, not words anyone types with a typo. */
const MAX_TYPO_WORD = 40;

/** The word with each one of its letters deleted, without repeats. */
export function deletions(word: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i < word.length; i++) out.add(word.slice(0, i) + word.slice(i + 1));
  return [...out];
}

/**
 * Adds the keys of every word of the word index (names_words) not yet in the table, inside the
 * caller's transaction. All in SQL: the words come from the index's vocabulary, a word's deletions
 * from one row per letter position (0 for the word itself), so no row crosses into JavaScript. The
 * CROSS JOIN keeps the words the outer loop: the other way round reads the vocabulary once per position.
 */
export function addWordKeys(db: Database) {
  db.exec(`
    WITH RECURSIVE position (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM position WHERE i < ${MAX_TYPO_WORD}),
    new_words (word) AS (
      SELECT term FROM names_words_vocab WHERE length(term) BETWEEN ${MIN_TYPO_WORD} AND ${MAX_TYPO_WORD}
        AND NOT EXISTS (SELECT 1 FROM word_deletes WHERE key = term AND word = term))
    INSERT OR IGNORE INTO word_deletes (key, word)
    SELECT CASE i WHEN 0 THEN word ELSE substr(word, 1, i - 1) || substr(word, i + 1) END, word
    FROM new_words CROSS JOIN position WHERE i <= length(word)`);
}

/**
 * The table keys a typed word is looked up under: itself and its one-letter deletions, and with a budget
 * of two its two-letter deletions. None for a word too long to be within its budget of any stored word:
 * a 500-letter "word" would otherwise make some 125,000 keys (quadratic in its length), a second of work
 * per request for anyone with a geocoding key.
 */
export function typoKeys(typed: string, budget: number): string[] {
  if (budget === 0 || typed.length - budget > MAX_TYPO_WORD) return [];
  const keys = new Set([typed, ...deletions(typed)]);
  if (budget >= 2) for (const once of deletions(typed)) for (const twice of deletions(once)) keys.add(twice);
  return [...keys];
}

/** Looks up the stored words within a typed word's typo budget (text.ts) of it, the word itself included. */
export function createWordTypos(db: Database) {
  const byKeys = db.query<{ word: string }, [string]>("SELECT DISTINCT word FROM word_deletes WHERE key IN (SELECT value FROM json_each(?))");
  return (typed: string): string[] => {
    const budget = typoBudget(typed.length);
    const keys = typoKeys(typed, budget);
    if (keys.length === 0) return [typed];
    return byKeys
      .all(JSON.stringify(keys))
      .map((r) => r.word)
      .filter((w) => editDistance(typed, w, budget) <= budget);
  };
}
