// Lowers the scheduling priority of the calling thread (Linux: setpriority on its thread id), so a
// processing thread yields the CPU to request handling on a busy machine. Best effort: anywhere this
// cannot work (another OS, a libc without these symbols) it does nothing.
import { dlopen, FFIType } from "bun:ffi";

const SYS_GETTID: Partial<Record<string, number>> = { x64: 186, arm64: 178 };

export function lowerThreadPriority(nice = 19): boolean {
  const gettid = SYS_GETTID[process.arch];
  if (process.platform !== "linux" || gettid === undefined) return false;
  for (const name of ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"]) {
    try {
      const libc = dlopen(name, {
        syscall: { args: [FFIType.i64], returns: FFIType.i64 },
        setpriority: { args: [FFIType.i32, FFIType.u32, FFIType.i32], returns: FFIType.i32 },
      });
      const tid = Number(libc.symbols.syscall(gettid));
      const ok = tid > 0 && libc.symbols.setpriority(0, tid, nice) === 0;
      libc.close();
      return ok;
    } catch {
      // try the next name
    }
  }
  return false;
}
