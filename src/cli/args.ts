// Splits argv into setting overrides (--kebab-case names of CONTRACT.md settings) and the rest.
import { parseArgs } from "node:util";
import { SETTINGS, kebab } from "../config";

export interface SplitArgs {
  overrides: Record<string, string>;
  rest: string[];
}

const FLAG_TO_SETTING = new Map(SETTINGS.map((s) => [`--${kebab(s.name)}`, s.name]));

export function splitSettingFlags(argv: string[]): SplitArgs {
  const overrides: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const setting = FLAG_TO_SETTING.get(flag);
    if (!setting) {
      rest.push(arg);
      continue;
    }
    if (eq > 0) overrides[setting] = arg.slice(eq + 1);
    else if (setting === "TRUST_PROXY" && (argv[i + 1] === undefined || argv[i + 1]!.startsWith("--"))) overrides[setting] = "true";
    else {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      overrides[setting] = value;
    }
  }
  return { overrides, rest };
}

export class UsageError extends Error {}

/**
 * A UsageError for what node:util's parseArgs threw: its unknown-option message goes on about
 * positionals after `--`, which no command here takes; say it as the top level says it.
 */
export function usageErrorOf(err: unknown): UsageError {
  const { code, message } = (err ?? {}) as { code?: string; message?: string };
  const option = code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /'([^']*)'/.exec(message ?? "")?.[1] : undefined;
  if (option !== undefined) return new UsageError(`unknown option '${option}'; see --help`);
  return new UsageError(message ?? String(err));
}

/** Refuses arguments a command does not know, so a typo is not silently ignored. */
export function rejectUnknownArgs(rest: string[], known: string[] = []): void {
  const unknown = rest.filter((a) => !known.includes(a));
  if (unknown.length) throw new UsageError(`unknown option or argument '${unknown[0]}'; see --help`);
}

export function settingsHelp(): string {
  return SETTINGS.map((s) => `  --${kebab(s.name).padEnd(24)} ${s.name}: ${s.description}${s.default !== undefined && s.default !== "" ? ` (default ${s.default})` : ""}`).join("\n");
}

/** node:util's parseArgs (strict, positionals allowed), its errors as UsageErrors. */
export function parse<T extends Record<string, { type: "string" | "boolean"; multiple?: boolean }>>(args: string[], options: T) {
  try {
    return parseArgs({ args, allowPositionals: true, strict: true, options });
  } catch (err) {
    throw usageErrorOf(err);
  }
}
