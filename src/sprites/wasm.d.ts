// `import path from "x.wasm" with { type: "file" }` gives a path that also works inside the compiled binary.
declare module "*.wasm" {
  const path: string;
  export default path;
}
