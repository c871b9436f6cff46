// Renders run off the request thread: a pool of Bun Workers (started on first use, at most one render
// each at a time) with a bounded queue. A full queue answers 503 RENDER_BUSY with Retry-After at once
// rather than building an unbounded backlog; a render past the time limit has its worker terminated
// (whatever it was stuck on) and replaced, and answers 503 RENDER_TIMEOUT.
//
// The worker asks this thread for tiles, the sprite and fonts while it renders (see render-worker.ts for
// the messages); they come from the app's own stores, so a render never makes an HTTP request.
import { AppError } from "../../errors";
import type { RenderSourceInfo, RenderView, SpriteEntry, StyleSpecification } from "../../render/types";
import type { ImageFormat } from "./static-request";

export interface RenderJob {
  style: StyleSpecification;
  view: RenderView;
  sources: Record<string, RenderSourceInfo>;
  format: ImageFormat;
  /** device pixels cut from every side of the rendered image (raster tiles are drawn with a margin) */
  margin?: number;
}

/** What the worker may ask for during one job. */
export interface JobResources {
  tile(sourceId: string, z: number, x: number, y: number): Promise<Uint8Array | null>;
  sprite(pixelRatio: 1 | 2): Promise<{ json: Record<string, SpriteEntry>; png: Uint8Array } | null>;
  font(name: string): Promise<Uint8Array | null>;
}

export type WorkerRequest = { type: "render"; job: RenderJob } | { type: "resource"; rid: number; value: unknown };
export type WorkerReply =
  | { type: "need"; rid: number; what: "tile"; args: [string, number, number, number] }
  | { type: "need"; rid: number; what: "sprite"; args: [1 | 2] }
  | { type: "need"; rid: number; what: "font"; args: [string] }
  | { type: "done"; image: Uint8Array }
  | { type: "failed"; message: string };

export interface PoolOptions {
  workers: number;
  /** renders waiting for a worker before RENDER_BUSY */
  queue: number;
  timeoutMs: number;
  /** module specifier of the worker entry (tests may give their own) */
  workerUrl: string;
  onError?(message: string): void;
}

export const RETRY_AFTER_S = 2;

export const renderBusy = () =>
  new AppError(503, "RENDER_BUSY", "Every renderer is busy and the queue is full; retry shortly", undefined, { "retry-after": String(RETRY_AFTER_S) });

interface Pending {
  job: RenderJob;
  resources: JobResources;
  resolve(image: Uint8Array): void;
  reject(err: unknown): void;
}

interface Slot {
  worker: Worker;
  current: Pending | null;
  timer: ReturnType<typeof setTimeout> | null;
}

export class RenderPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Pending[] = [];
  private closed = false;

  constructor(private readonly opts: PoolOptions) {}

  /** Renders `job` on a free worker; rejects with RENDER_BUSY when the queue is full. */
  render(job: RenderJob, resources: JobResources): Promise<Uint8Array> {
    if (this.closed) return Promise.reject(renderBusy());
    return new Promise((resolve, reject) => {
      const pending: Pending = { job, resources, resolve, reject };
      const free = this.freeSlot();
      if (free) return this.start(free, pending);
      if (this.waiting.length >= this.opts.queue) return reject(renderBusy());
      this.waiting.push(pending);
    });
  }

  /** Renders running and waiting, for metrics and tests. */
  get load(): { running: number; queued: number } {
    return { running: this.slots.filter((s) => s.current).length, queued: this.waiting.length };
  }

  close(): void {
    this.closed = true;
    for (const slot of this.slots) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.current?.reject(renderBusy());
      slot.worker.terminate();
    }
    for (const p of this.waiting.splice(0)) p.reject(renderBusy());
    this.slots.length = 0;
  }

  private freeSlot(): Slot | null {
    const idle = this.slots.find((s) => !s.current);
    if (idle) return idle;
    if (this.slots.length < this.opts.workers) return this.spawn();
    return null;
  }

  private spawn(): Slot {
    const worker = new Worker(this.opts.workerUrl);
    // A pool never keeps the process alive on its own.
    (worker as unknown as { unref?(): void }).unref?.();
    const slot: Slot = { worker, current: null, timer: null };
    worker.onmessage = (event: MessageEvent<WorkerReply>) => this.onMessage(slot, event.data);
    worker.onerror = (event) => {
      this.opts.onError?.(`render worker crashed: ${(event as ErrorEvent).message ?? "unknown error"}`);
      this.replace(slot, new AppError(500, "INTERNAL", "The renderer failed"));
    };
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, pending: Pending): void {
    slot.current = pending;
    slot.timer = setTimeout(() => {
      this.replace(slot, new AppError(503, "RENDER_TIMEOUT", `The render took longer than ${this.opts.timeoutMs} ms and was stopped; try a smaller image or fewer overlays`, undefined, { "retry-after": String(RETRY_AFTER_S) }));
    }, this.opts.timeoutMs);
    slot.worker.postMessage({ type: "render", job: pending.job } satisfies WorkerRequest);
  }

  private finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.current = null;
    const next = this.waiting.shift();
    if (next) this.start(slot, next);
  }

  /** Terminates a stuck or crashed worker, fails its job and gives its place (and the queue) to a new one. */
  private replace(slot: Slot, err: AppError): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.worker.terminate();
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    slot.current?.reject(err);
    slot.current = null;
    if (this.closed) return;
    const next = this.waiting.shift();
    if (next) this.start(this.spawn(), next);
  }

  private onMessage(slot: Slot, msg: WorkerReply): void {
    const pending = slot.current;
    if (!pending) return;
    if (msg.type === "done") {
      this.finish(slot);
      pending.resolve(msg.image);
    } else if (msg.type === "failed") {
      this.opts.onError?.(`render failed: ${msg.message}`);
      this.finish(slot);
      pending.reject(new AppError(500, "INTERNAL", "The renderer failed"));
    } else if (msg.type === "need") {
      const answer = (value: unknown) => {
        // The job may have timed out meanwhile; its worker is gone.
        if (slot.current !== pending) return;
        // Not transferred: tiles and fonts stay in this thread's caches (in shared memory, so posting copies nothing).
        slot.worker.postMessage({ type: "resource", rid: msg.rid, value } satisfies WorkerRequest);
      };
      let work: Promise<unknown>;
      try {
        work = msg.what === "tile" ? pending.resources.tile(...msg.args) : msg.what === "sprite" ? pending.resources.sprite(...msg.args) : pending.resources.font(...msg.args);
      } catch (err) {
        work = Promise.reject(err);
      }
      work.then(answer, (err) => {
        this.opts.onError?.(`render resource ${msg.what} failed: ${String((err as Error)?.message ?? err)}`);
        answer(null);
      });
    }
  }
}
