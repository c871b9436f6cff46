// Which of a place's names get rows: the writer applies the rule, or the import's parsing thread does
// it ahead (the names then come marked namesDistinct), so the thread writing SQLite need not.
import type { NameRecord } from "./writer";
import { foldName } from "./text";

/** A place keeps at most this many names: some GeoNames rows list hundreds of spellings. */
const MAX_NAMES_PER_PLACE = 64;

/**
 * The other names of a place that get rows beside its own (folded `folded`), in order: those whose
 * folded form is not empty and new in its language, up to MAX_NAMES_PER_PLACE names in all. Fills in
 * each name's `folded`.
 */
export function distinctNames(folded: string, names: NameRecord[]): NameRecord[] {
  if (!names.length) return names;
  if (names.length <= FEW_NAMES) return fewDistinctNames(folded, names);
  const seen = new Set<string>();
  if (folded) seen.add(`\u0000${folded}`);
  const kept: NameRecord[] = [];
  for (const n of names) {
    if (seen.size >= MAX_NAMES_PER_PLACE) break;
    const f = (n.folded ??= foldName(n.name));
    const key = `${n.lang}\u0000${f}`;
    if (!f || seen.has(key)) continue;
    seen.add(key);
    kept.push(n);
  }
  return kept;
}

/** Up to this many other names, distinctNames compares them pairwise: a Set per place cost more (most places have one or two). */
const FEW_NAMES = 8;

/** distinctNames for a few names (fewer than MAX_NAMES_PER_PLACE, so none is cut for the cap). */
function fewDistinctNames(folded: string, names: NameRecord[]): NameRecord[] {
  const kept: NameRecord[] = [];
  for (const n of names) {
    const f = (n.folded ??= foldName(n.name));
    if (!f || (n.lang === "" && f === folded) || kept.some((k) => k.folded === f && k.lang === n.lang)) continue;
    kept.push(n);
  }
  return kept;
}
