// The parts of osrm-text-instructions (plain CommonJS, no bundled types) that instructions.ts uses.
declare module "osrm-text-instructions" {
  interface Compiler {
    compile(language: string, step: object, options: { legIndex: number; legCount: number }): string;
  }
  export default function osrmTextInstructions(version: "v5"): Compiler;
}

declare module "osrm-text-instructions/languages" {
  const languages: { supportedCodes: string[] };
  export default languages;
}
