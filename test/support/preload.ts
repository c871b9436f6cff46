// Loaded before every test file (bunfig.toml): plain output, no colour codes in CLI assertions, no
// installed settings file,
// room for tests that start browsers, binaries and workers (bun's default is 5 s per test), and the
// tests' temporary directories removed after the last test (a hook here runs once for the whole run).
import { afterAll, setDefaultTimeout } from "bun:test";
import { removeTempDirs } from "./temp";

process.env.NO_COLOR = "1";
// An installed server's settings file (/etc/mapstead/mapstead.env) must not reach the tests' commands.
process.env.MAPSTEAD_ENV_FILE ??= "none";
setDefaultTimeout(60_000);
afterAll(removeTempDirs);
