// Reads a binary file of fixed-layout records (.shp, .dbf) through one reused window of bytes, so a
// file of gigabytes is walked with a megabyte or so in memory.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

const WINDOW = 1024 * 1024;

export class FileWindow {
  private readonly fd: number;
  private buffer = Buffer.alloc(WINDOW);
  private start = 0;
  private end = 0;
  readonly size: number;

  constructor(path: string) {
    this.fd = openSync(path, "r");
    this.size = fstatSync(this.fd).size;
  }

  /**
   * The bytes at [offset, offset + length), or fewer where the file ends first. The view is only valid
   * until the next call.
   */
  bytes(offset: number, length: number): Uint8Array {
    if (offset < this.start || offset + length > this.end) {
      if (length > this.buffer.length) this.buffer = Buffer.alloc(length);
      this.start = offset;
      this.end = offset + readSync(this.fd, this.buffer, 0, this.buffer.length, offset);
    }
    const from = offset - this.start;
    return this.buffer.subarray(from, Math.min(from + length, this.end - this.start));
  }

  close(): void {
    closeSync(this.fd);
  }
}
