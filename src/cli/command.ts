export interface CliCommand {
  name: string;
  summary: string;
  /** full help text shown by `mapstead <name> --help` */
  help: string;
  /** returns the process exit code */
  run(args: string[], overrides: Record<string, string>): Promise<number>;
}
