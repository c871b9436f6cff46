// The reference UI's browser bundle, imported with `{ type: "file" }`: its embedded path in the binary.
declare module "*/dist/browser/standalone.js" {
  const path: string;
  export default path;
}
