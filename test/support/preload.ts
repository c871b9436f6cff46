// Loaded before every test file (bunfig.toml): plain output, no colour codes in CLI assertions.
process.env.NO_COLOR = "1";
