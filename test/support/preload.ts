// Loaded before every test file (bunfig.toml): plain output, no colour codes in CLI assertions, and
// room for tests that start browsers, binaries and workers (bun's default is 5 s per test).
import { setDefaultTimeout } from "bun:test";

process.env.NO_COLOR = "1";
setDefaultTimeout(60_000);
