import { describe, expect, test } from "bun:test";
import { checkSvg, UnsafeSvg, MAX_SVG_BYTES } from "../../src/sprites/svg-safety";

const enc = (s: string) => new TextEncoder().encode(s);
const svg = (inner: string, attrs = "") => `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"${attrs}>${inner}</svg>`;

describe("untrusted SVG checks", () => {
  test("accepts self-contained icons with internal references", () => {
    const ok = svg(`<defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient><path id="p" d="M0 0h5v5z"/></defs><use href="#p"/><use xlink:href="#p"/><rect fill="url(#g)" width="4" height="4" style="fill:url('#g')"/>`);
    expect(checkSvg(enc(ok))).toContain("<svg");
  });

  const refused: [string, string, RegExp][] = [
    ["external href", svg(`<use href="http://evil.example/x.svg#a"/>`), /points outside/],
    ["file xlink:href", svg(`<use xlink:href="file:///etc/passwd"/>`), /points outside/],
    ["use of another file", svg(`<use href="other.svg#icon"/>`), /points outside/],
    ["data URI href", svg(`<use href="data:image/svg+xml;base64,PHN2Zz4="/>`), /points outside/],
    ["image element", svg(`<image href="#x" width="5" height="5"/>`), /<image>/],
    ["script", svg(`<script>alert(1)</script>`), /<script>/],
    ["foreignObject", svg(`<foreignObject><div/></foreignObject>`), /<foreignObject>/],
    ["external url() in style", svg(`<rect style="fill:url(https://x.example/a.svg#g)" width="1" height="1"/>`), /url\(/],
    ["CSS import", svg(`<style>@import "https://x.example/a.css";</style>`), /@import/],
    ["DOCTYPE", `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]>` + svg("&a;"), /DOCTYPE/],
    ["entity without doctype", `<!ENTITY xxe SYSTEM "file:///etc/passwd">` + svg(""), /ENTITY/],
    ["xml-stylesheet", `<?xml-stylesheet href="https://x.example/s.css"?>` + svg(""), /stylesheet/],
    ["no svg element", `<html><body/></html>`, /no <svg>/],
    ["entity-encoded href", svg(`<use href="&#104;ttp://x.example/a.svg"/>`), /points outside/],
  ];
  for (const [name, text, message] of refused) {
    test(`refuses ${name}`, () => {
      expect(() => checkSvg(enc(text))).toThrow(message);
      expect(() => checkSvg(enc(text))).toThrow(UnsafeSvg);
    });
  }

  test("refuses empty, oversized, binary and non-UTF-8 files", () => {
    expect(() => checkSvg(new Uint8Array(0))).toThrow(/empty/);
    expect(() => checkSvg(enc(svg(" ".repeat(MAX_SVG_BYTES))))).toThrow(/byte limit/);
    expect(() => checkSvg(new Uint8Array([0x3c, 0x73, 0x76, 0x67, 0xff, 0xfe]))).toThrow(/UTF-8/);
    expect(() => checkSvg(enc(svg("\u0000")))).toThrow(/NUL/);
  });
});
