// Entry of a render worker thread (started by pool.ts): renders one job at a time with the renderer
// and encodes the image. Resources are asked of the main thread by message:
//   worker -> main  {type:"need", rid, what:"tile"|"sprite"|"font", args}
//   main -> worker  {type:"resource", rid, value}
// and the job ends with {type:"done", image} or {type:"failed", message}.
import { renderImage } from "../../render/index";
import type { GeoJSON } from "geojson";
import type { RenderResources } from "../../render/types";
import { crop, encodeImage } from "./encode";
import type { RenderJob, WorkerReply, WorkerRequest } from "./pool";

declare const self: Worker;

let nextRid = 0;
const waiting = new Map<number, (value: unknown) => void>();

function ask<T>(what: "tile" | "sprite" | "font", args: unknown[]): Promise<T> {
  const rid = ++nextRid;
  return new Promise<T>((resolve) => {
    waiting.set(rid, resolve as (value: unknown) => void);
    self.postMessage({ type: "need", rid, what, args } as WorkerReply);
  });
}

function resourcesFor(job: RenderJob): RenderResources {
  const inline = new Map<string, GeoJSON>();
  for (const [id, source] of Object.entries(job.style.sources))
    if (source.type === "geojson" && typeof source.data === "object" && source.data) inline.set(id, source.data as GeoJSON);
  return {
    tile: (sourceId, z, x, y) => ask("tile", [sourceId, z, x, y]),
    sourceInfo: (sourceId) => job.sources[sourceId] ?? null,
    geojson: (sourceId) => inline.get(sourceId) ?? null,
    sprite: (pixelRatio) => ask("sprite", [pixelRatio]),
    font: (name) => ask("font", [name]),
  };
}

async function run(job: RenderJob): Promise<void> {
  try {
    const pixels = await renderImage(job.style, job.view, resourcesFor(job));
    const cropped = job.margin ? crop(pixels, job.margin) : pixels;
    const image = await encodeImage(cropped, job.format);
    self.postMessage({ type: "done", image } as WorkerReply, [image.buffer as ArrayBuffer]);
  } catch (err) {
    self.postMessage({ type: "failed", message: String((err as Error)?.message ?? err) } as WorkerReply);
  }
}

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const msg = event.data;
  if (msg.type === "render") void run(msg.job);
  else if (msg.type === "resource") {
    const resolve = waiting.get(msg.rid);
    waiting.delete(msg.rid);
    resolve?.(msg.value);
  }
};
