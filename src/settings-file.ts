// The installed settings file (install.sh writes /etc/mapstead/mapstead.env; the systemd unit reads it
// as its EnvironmentFile). Every command reads it too, so `mapstead preflight` or `mapstead tilesets
// import` run by hand on the server use the service's DATA_DIR and PUBLIC_URL without exporting them
// first. The environment and flags win over it. MAPSTEAD_ENV_FILE names another file, or `none`.
import { readFileSync } from "node:fs";
import { editDistance } from "./backends/geocoder/embedded/text";

export const DEFAULT_SETTINGS_FILE = "/etc/mapstead/mapstead.env";

export interface SettingsFile {
  /** the file read, or null when there was none to read */
  path: string | null;
  values: Record<string, string>;
  /** what a person should know: an unreadable file, lines not understood, unknown names */
  notes: string[];
}

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;

/** A quoted value, and a `#` comment after it. */
const QUOTED = /^(["'])(.*?)\1(?:\s+#.*)?$/;

/** A shell-style value: quoted ('...' or "...", a comment may follow), or bare up to a `#` comment. */
function valueOf(raw: string): string {
  const v = raw.trim();
  const quoted = QUOTED.exec(v);
  if (quoted) return quoted[2]!;
  return v.replace(/\s+#.*$/, "");
}

/** `explicit`: MAPSTEAD_ENV_FILE's value (undefined when unset); `known`: the setting names. */
export function readSettingsFile(explicit: string | undefined, known: ReadonlySet<string>): SettingsFile {
  if (explicit === "none") return { path: null, values: {}, notes: [] };
  const path = explicit || DEFAULT_SETTINGS_FILE;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // No installed file is the usual case on a development machine: nothing to say.
    if (code === "ENOENT" && !explicit) return { path: null, values: {}, notes: [] };
    const why = code === "ENOENT" ? "it does not exist" : code === "EACCES" ? "permission denied" : String(code ?? err);
    const hint = code === "EACCES" ? ": run the command as the service user (sudo -u mapstead mapstead ...) or as root" : "";
    return { path: null, values: {}, notes: [`cannot read the settings file ${path} (${why}); its settings are not applied${hint}`] };
  }
  const values: Record<string, string> = {};
  const notes: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim() || line.trim().startsWith("#")) return;
    const m = LINE.exec(line);
    if (!m) return void notes.push(`${path} line ${i + 1} is not NAME=value; it is ignored`);
    const [, name, raw] = m as unknown as [string, string, string];
    if (!known.has(name)) {
      const near = nearestSetting(name, known);
      return void notes.push(`${path} line ${i + 1}: ${name} is not a Mapstead setting${near ? ` (did you mean ${near}?)` : ""}; it is ignored`);
    }
    values[name] = valueOf(raw);
  });
  return { path, values, notes };
}

/** A setting name near `name` (two edits at most), for "did you mean". */
function nearestSetting(name: string, known: ReadonlySet<string>): string | undefined {
  return [...known].find((k) => editDistance(name, k, 2) <= 2);
}

/**
 * Names in the environment that look meant for Mapstead but are not its settings (ROUTING_INTERNAL_URLS,
 * GEOCODER_URL, DATADIR), which would otherwise be ignored without a word. The environment holds every
 * other program's variables too, so only a name of a setting family (GEOCODER_..., ROUTING_...) or one of
 * seven characters or more within two edits of a setting is named; HOME is not taken for HOST.
 */
export function environmentNotes(names: Iterable<string>, known: ReadonlySet<string>): string[] {
  const families = new Set([...known].map((k) => k.slice(0, k.indexOf("_") + 1)).filter((f) => f.length >= 7));
  const notes: string[] = [];
  for (const name of names) {
    if (known.has(name)) continue;
    const near = name.length >= 7 ? nearestSetting(name, known) : undefined;
    const family = [...families].some((f) => name.startsWith(f));
    if (near || family) notes.push(`${name} in the environment is not a Mapstead setting${near ? ` (did you mean ${near}?)` : ""}; it is ignored (the README's Settings table lists them)`);
  }
  return notes;
}
