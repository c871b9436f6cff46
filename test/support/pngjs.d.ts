// The part of pngjs (a devDependency, the PNG tests' oracle) that tests use; it ships no types.
declare module "pngjs" {
  export const PNG: {
    sync: { read(buffer: Buffer, options?: { checkCRC?: boolean }): { width: number; height: number; data: Buffer } };
  };
}
