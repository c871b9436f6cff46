// An upload body bound to the server's `overdue` signal: it fails with 503 SERVER_STOPPING when the
// signal fires mid-upload, and leaves no listener on that process-wide signal once it has ended.
import { describe, expect, test } from "bun:test";
import { getEventListeners } from "node:events";
import { untilOverdue } from "../../../src/domain/tilesets/upload-stopping";
import { AppError } from "../../../src/errors";

const listeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

describe("untilOverdue", () => {
  test("a body read to its end, or cancelled, leaves no listener on the signal", async () => {
    const overdue = new AbortController();
    for (let i = 0; i < 50; i++) await new Response(untilOverdue(new Response("some upload").body!, overdue.signal)).text();
    const cancelled = untilOverdue(new Response("x".repeat(100_000)).body!, overdue.signal);
    await cancelled.cancel();
    expect(listeners(overdue.signal)).toBe(0);
  });

  test("a body still streaming when the signal fires fails with 503 SERVER_STOPPING and Retry-After", async () => {
    const overdue = new AbortController();
    const stalled = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new Uint8Array([1, 2, 3])) });
    const reader = untilOverdue(stalled, overdue.signal).getReader();
    expect((await reader.read()).value).toEqual(new Uint8Array([1, 2, 3]));
    const pending = reader.read();
    overdue.abort();
    const error = await pending.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(503);
    expect((error as AppError).code).toBe("SERVER_STOPPING");
    expect((error as AppError).headers?.["retry-after"]).toBe("30");
  });
});
