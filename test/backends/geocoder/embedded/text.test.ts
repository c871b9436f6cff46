// Name folding and the bounded edit distance behind the gazetteer's matching.
import { expect, test } from "bun:test";
import { editDistance, foldName, typoBudget } from "../../../../src/backends/geocoder/embedded/text";

test("folding drops accents, case and punctuation, and spells out letters NFKD keeps", () => {
  expect(foldName("São Paulo")).toBe("sao paulo");
  expect(foldName("  SAINT-ÉTIENNE (Loire) ")).toBe("saint etienne loire");
  expect(foldName("Straße")).toBe("strasse");
  expect(foldName("Łódź")).toBe("lodz");
  expect(foldName("Ærøskøbing")).toBe("aeroskobing");
  expect(foldName("東京")).toBe("東京");
  expect(foldName("!!!")).toBe("");
});

test("every way through folding gives the same form: plain ASCII, ASCII once unaccented, and the rest", () => {
  // Already folded, and ASCII that still needs its punctuation and spaces folded.
  expect(foldName("zurich nord")).toBe("zurich nord");
  expect(foldName(" Zurich--Nord  2 ")).toBe("zurich nord 2");
  // ASCII once NFKD has split off the marks (and compatibility forms: full-width letters, ligatures).
  expect(foldName("Zürich-Nord!")).toBe("zurich nord");
  expect(foldName("İstanbul")).toBe("istanbul");
  expect(foldName("ＡＢＣ ﬁeld")).toBe("abc field");
  // Not ASCII even then: the Unicode-aware steps.
  expect(foldName("Ærø–by")).toBe("aero by");
  expect(foldName("Москва-Сити")).toBe("москва сити");
});

test("edit distance counts insertions, deletions, substitutions and swaps, and stops past the budget", () => {
  expect(editDistance("berln", "berlin", 1)).toBe(1);
  expect(editDistance("nwe york", "new york", 1)).toBe(1);
  expect(editDistance("amsterdm", "amsterdam", 2)).toBe(1);
  expect(editDistance("paris", "paris", 0)).toBe(0);
  expect(editDistance("kitten", "sitting", 3)).toBe(3);
  expect(editDistance("kitten", "sitting", 1)).toBe(2);
  expect(editDistance("a", "abcdef", 2)).toBe(3);
});

test("short words get no typo budget, so two-letter queries never match by accident", () => {
  expect([typoBudget(3), typoBudget(4), typoBudget(7), typoBudget(8)]).toEqual([0, 1, 1, 2]);
});
