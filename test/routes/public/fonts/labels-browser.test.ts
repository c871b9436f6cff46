// MapLibre GL JS in Chromium renders labels with Mapstead's glyphs: Latin, accented and Cyrillic text
// in Noto Sans Regular must match a canvas rendering of the same text in the same font (loaded with
// FontFace from the same TTF): same ink width and height (advances and glyph boxes), and the same
// shape once aligned (every glyph on the right baseline at the right place along the line).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { serveTestApp, type TestApp } from "../../../support/app";
import { ARTIFACTS_DIR, launchBrowser, openMap, type MapPage } from "../../../support/browser";
import { NOTO_REGULAR_TTF } from "../../management/fonts/fixtures";

const LABELS = [
  { text: "Hamburg Straße", at: [-60, 40] },
  { text: "Zürich Ångström", at: [-60, 0] },
  { text: "Москва", at: [-60, -40] },
] as const;

let t: TestApp;
let browser: Browser;
let map: MapPage;

beforeAll(async () => {
  t = await serveTestApp();
  browser = await launchBrowser();
  const style = {
    version: 8,
    glyphs: `${t.baseUrl}/fonts/v1/{fontstack}/{range}.pbf`,
    sources: {
      labels: {
        type: "geojson",
        data: {
          type: "FeatureCollection",
          features: LABELS.map((l) => ({ type: "Feature", properties: { name: l.text }, geometry: { type: "Point", coordinates: l.at } })),
        },
      },
    },
    layers: [
      { id: "bg", type: "background", paint: { "background-color": "#ffffff" } },
      {
        id: "names",
        type: "symbol",
        source: "labels",
        layout: {
          "text-field": ["get", "name"],
          "text-font": ["Noto Sans Regular"],
          "text-size": 24,
          "text-anchor": "left",
          "text-allow-overlap": true,
          "text-ignore-placement": true,
        },
        paint: { "text-color": "#000000" },
      },
    ],
  };
  map = await openMap(browser, { style, center: [0, 0], zoom: 1, width: 800, height: 600 });
}, 60_000);

afterAll(async () => {
  await map?.close();
  await browser?.close();
  await t?.close();
});

interface Mask {
  width: number;
  height: number;
  /** true where the pixel is dark (ink) */
  ink: Uint8Array;
}

function inkMask(data: Uint8Array, width: number, x0: number, y0: number, w: number, h: number): Mask {
  const ink = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = ((y0 + y) * width + x0 + x) * 4;
      ink[y * w + x] = data[i]! < 128 ? 1 : 0;
    }
  return { width: w, height: h, ink };
}

function bbox(m: Mask) {
  let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
  for (let y = 0; y < m.height; y++)
    for (let x = 0; x < m.width; x++)
      if (m.ink[y * m.width + x]) {
        x0 = Math.min(x0, x); x1 = Math.max(x1, x);
        y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      }
  return { x0, y0, x1, y1, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

/** Share of ink pixels of `a` (at offset dx, dy) that have ink of `b` within one pixel, both ways. */
function agreement(a: Mask, b: Mask, dx: number, dy: number): number {
  const near = (m: Mask, x: number, y: number) => {
    for (let j = -1; j <= 1; j++)
      for (let i = -1; i <= 1; i++) {
        const xx = x + i, yy = y + j;
        if (xx >= 0 && yy >= 0 && xx < m.width && yy < m.height && m.ink[yy * m.width + xx]) return true;
      }
    return false;
  };
  let hitA = 0, inkA = 0, hitB = 0, inkB = 0;
  for (let y = 0; y < a.height; y++)
    for (let x = 0; x < a.width; x++)
      if (a.ink[y * a.width + x]) {
        inkA++;
        if (near(b, x + dx, y + dy)) hitA++;
      }
  for (let y = 0; y < b.height; y++)
    for (let x = 0; x < b.width; x++)
      if (b.ink[y * b.width + x]) {
        inkB++;
        if (near(a, x - dx, y - dy)) hitB++;
      }
  return Math.min(hitA / inkA, hitB / inkB);
}

async function referenceMasks(page: MapPage["page"]): Promise<{ masks: Mask[]; png: string }> {
  const ttf = readFileSync(NOTO_REGULAR_TTF).toString("base64");
  const r = await page.evaluate(
    async ({ ttf, texts }) => {
      const bytes = Uint8Array.from(atob(ttf), (c) => c.charCodeAt(0));
      const face = new FontFace("ReferenceNoto", bytes.buffer);
      await face.load();
      (document.fonts as unknown as { add(f: FontFace): void }).add(face);
      const canvas = document.createElement("canvas");
      canvas.width = 400;
      canvas.height = 60 * texts.length;
      const g = canvas.getContext("2d")!;
      g.fillStyle = "#fff";
      g.fillRect(0, 0, canvas.width, canvas.height);
      g.fillStyle = "#000";
      g.font = "24px ReferenceNoto";
      texts.forEach((text, i) => g.fillText(text, 20, 60 * i + 40));
      const d = g.getImageData(0, 0, canvas.width, canvas.height).data;
      let s = "";
      for (let i = 0; i < d.length; i += 0x8000) s += String.fromCharCode(...d.subarray(i, i + 0x8000));
      return { width: canvas.width, height: canvas.height, rgba: btoa(s), png: canvas.toDataURL("image/png") };
    },
    { ttf, texts: LABELS.map((l) => l.text) },
  );
  const rgba = new Uint8Array(Buffer.from(r.rgba, "base64"));
  return { masks: LABELS.map((_, i) => inkMask(rgba, r.width, 0, 60 * i, r.width, 60)), png: r.png };
}

describe("labels rendered by MapLibre GL JS with Mapstead glyphs", () => {
  test("load without failed requests or map errors, using the glyph ranges of every script", async () => {
    expect(map.failedRequests).toEqual([]);
    expect(await map.mapErrors()).toEqual([]);
    const glyphRequests = map.requests.filter((u) => u.includes("/fonts/v1/"));
    expect(glyphRequests).toContain(`${t.baseUrl}/fonts/v1/Noto%20Sans%20Regular/0-255.pbf`);
    expect(glyphRequests).toContain(`${t.baseUrl}/fonts/v1/Noto%20Sans%20Regular/1024-1279.pbf`);
  });

  test("Latin, accented and Cyrillic labels match the same text drawn by the browser in the same font", async () => {
    const px = await map.pixels();
    const anchors = await map.page.evaluate((points) => points.map((p) => (window as any).map.project(p)), LABELS.map((l) => l.at as unknown as [number, number]));
    const { masks: refs, png } = await referenceMasks(map.page);
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    writeFileSync(join(ARTIFACTS_DIR, "fonts-labels-reference.png"), Buffer.from(png.split(",")[1]!, "base64"));
    await map.screenshot("fonts-labels-maplibre");

    const report: string[] = [];
    for (const [i, label] of LABELS.entries()) {
      const a = anchors[i]!;
      const x0 = Math.round(a.x) - 10;
      const y0 = Math.round(a.y) - 30;
      const rendered = inkMask(px.data, px.width, x0, y0, 400, 60);
      const ref = refs[i]!;
      const rb = bbox(rendered);
      const fb = bbox(ref);
      // Text anchored "left" at the point, vertically centred on it.
      expect(rb.x0).toBeGreaterThanOrEqual(8);
      expect(rb.x0).toBeLessThanOrEqual(16);
      expect(Math.abs((rb.y0 + rb.y1) / 2 - 30)).toBeLessThanOrEqual(6);
      // Advances: the label is as wide as the browser's own rendering of it (whole-pixel advances
      // per glyph may add up to a few pixels over a long label).
      expect(Math.abs(rb.width - fb.width)).toBeLessThanOrEqual(Math.max(3, Math.round(fb.width * 0.02)));
      // Glyph boxes and baseline: same height (accents above, descenders below).
      expect(Math.abs(rb.height - fb.height)).toBeLessThanOrEqual(2);
      // Shape: aligned on their boxes (±1 px), nearly every ink pixel of one has ink of the other
      // within a pixel. One glyph two pixels off its baseline or its place along the line would
      // already cost a few percent.
      let best = { score: 0, dx: 0, dy: 0 };
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const score = agreement(rendered, ref, fb.x0 - rb.x0 + dx, fb.y0 - rb.y0 + dy);
          if (score > best.score) best = { score, dx: fb.x0 - rb.x0 + dx, dy: fb.y0 - rb.y0 + dy };
        }
      const shifted = agreement(rendered, ref, best.dx, best.dy + 3);

      report.push(`${label.text}: rendered ${rb.width}x${rb.height}, reference ${fb.width}x${fb.height}, agreement ${best.score.toFixed(3)} (3 px off: ${shifted.toFixed(3)})`);
      expect(best.score).toBeGreaterThan(0.97);
      // The measure tells a 3 px baseline error apart.
      expect(shifted).toBeLessThan(best.score - 0.15);
    }
    console.log(report.join("\n"));
  });
});
